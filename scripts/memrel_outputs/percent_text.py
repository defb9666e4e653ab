"""A relative change as a percentage that reads as one: "+12.5", or "+1e+302" past a million per
cent (a mean before of 1e-300 ns made a 300-digit figure: the sixty-second adversarial pass,
c4-history-changes-percent-300-digits). The twin of gate/format.cpp, relative_change."""

# Past this many per cent the digits say nothing more than the exponent does.
_MOST_FIXED_PERCENT = 1e6


def percent_figure(percent):
    """The figure of PERCENT, signed, without the % sign (each table adds its own spacing)."""
    return f"{percent:+.1f}" if abs(percent) < _MOST_FIXED_PERCENT else f"{percent:+.3g}"
