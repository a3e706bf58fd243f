"""Tests of two_bone_ik.common.number_text: numbers in messages, as people read them."""

import math

import pytest

from two_bone_ik.common.number_text import number_text


@pytest.mark.parametrize('value, unit, decimals, text', [
    (0.44721, 'm', 3, '0.447 m'),
    (-1.34097, 'rad', 3, '-1.341 rad'),
    (0.0, 'm', 3, '0.000 m'),
    (0.001, 'm', 3, '0.001 m'),
    (0.0004, 'm', 3, '0.0004 m'),          # 3 decimals would say 0.000
    (0.00041234, 'm', 3, '0.000412 m'),
    (-2.5e-7, 'm', 6, '-2.5e-07 m'),
    (999999.5, 'm', 3, '999999.500 m'),
    (1e6, 'm', 3, '1e+06 m'),
    (1e20, 'm', 3, '1e+20 m'),             # not twenty digits
    (1.23456e101, '', 3, '1.23e+101'),
    (0.12, 'm', 6, '0.120000 m'),
    (math.nan, 'm', 3, 'nan m'),
    (-math.inf, '', 3, '-inf'),
])
def test_decimals_where_they_show_the_number_else_three_digits(value, unit, decimals, text):
    assert number_text(value, unit, decimals) == text
