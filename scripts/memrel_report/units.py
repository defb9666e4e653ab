"""Units used in every plot and table: MiB (2**20 bytes) and µs.

Byte figures stay exact integers until they are drawn; these helpers are the only place that
divides, so a table and a plot of the same figure agree.
"""

MIB = 1 << 20
NS_PER_US = 1000.0

# Google Benchmark's time_unit values and how many nanoseconds each is.
TIME_UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def mib(value):
    """Bytes to MiB; None stays None (a figure the source could not give)."""
    return None if value is None else value / MIB


def us(nanoseconds):
    """Nanoseconds to microseconds; None stays None."""
    return None if nanoseconds is None else nanoseconds / NS_PER_US


def to_us(value, time_unit):
    """A Google Benchmark time in `time_unit` to microseconds."""
    return value * TIME_UNIT_NS[time_unit] / NS_PER_US


def fmt_mib(value, digits=2):
    """'360.00 MiB', or 'n/a' for None."""
    return "n/a" if value is None else f"{mib(value):,.{digits}f} MiB"


def fmt_bytes(value):
    """Exact bytes with thousands separators: '377,487,360 B', or 'n/a'."""
    return "n/a" if value is None else f"{value:,} B"


def fmt_us(nanoseconds):
    """Nanoseconds as µs with enough digits for sub-µs figures: '10.7 µs', '0.74 µs'."""
    if nanoseconds is None:
        return "n/a"
    value = nanoseconds / NS_PER_US
    if value >= 100:
        return f"{value:,.0f} µs"
    if value >= 1:
        return f"{value:.1f} µs"
    return f"{value:.3f} µs"


def fmt_ratio(value, digits=3):
    """A ratio such as utilization or effectiveness; 'n/a' when undefined."""
    return "n/a" if value is None else f"{value:.{digits}f}"


def size_label(nbytes):
    """A power-of-two-friendly size label for axes: '512 B', '4 KiB', '1.5 MiB', '4 GiB'."""
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= factor:
            value = nbytes / factor
            text = f"{value:.0f}" if value == int(value) else f"{value:.3g}"
            return f"{text} {unit}"
    return f"{nbytes} B"
