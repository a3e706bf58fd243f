"""The MuJoCo-simulated arm (ROS-free); MuJoCo is imported only here."""
