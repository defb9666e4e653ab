"""The user's address-space limit (`ulimit -v`) as a Python part should say it. memrel starts its
Python parts with their soft limit a reserve below its own (platform/address_space_reserve.hpp)
and hands the user's over as MEMREL_ADDRESS_SPACE_LIMIT; the part's own limit is the reserve less."""

import os
import resource


def user_limit_bytes():
    """The user's limit in bytes, or None when there is none."""
    given = os.environ.get("MEMREL_ADDRESS_SPACE_LIMIT", "")
    if given.isascii() and given.isdigit():  # '²' is a digit to isdigit() and not to int()
        return int(given)
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    return None if soft == resource.RLIM_INFINITY else soft
