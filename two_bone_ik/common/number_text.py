"""Numbers as status texts show them to people: ``0.447 m``, ``0.0004 m``, ``1e+20 m``."""

import math

#: From this magnitude up, a number is shown with significant digits, not decimals.
LARGE = 1e6


def number_text(value: float, unit: str = '', decimals: int = 3) -> str:
    """Return ``value`` for a message: fixed decimals where they show it, else 3 digits.

    Parameters
    ----------
    value : float
        The number (NaN and infinities are shown as ``nan``, ``inf``, ``-inf``).
    unit : str
        Appended after a space when given (``'m'``, ``'rad'``).
    decimals : int
        Decimals for a magnitude from ``10**-decimals`` up to :data:`LARGE` (and for 0).

    Returns
    -------
    str
        ``0.447 m`` (decimals), ``0.0004 m`` and ``1e+20 m`` (three significant digits: a
        value the decimals would round to 0, or one of more than six digits).

    Examples
    --------
    >>> number_text(0.44721, 'm'), number_text(0.0004, 'm'), number_text(1e20, 'm')
    ('0.447 m', '0.0004 m', '1e+20 m')
    """
    value = float(value)
    size = abs(value)
    if math.isfinite(value) and (value == 0.0 or 10.0 ** -decimals <= size < LARGE):
        text = f'{value:.{decimals}f}'
    else:
        text = f'{value:.3g}'
    return f'{text} {unit}' if unit else text
