"""The store's error codes (docs/protocol.md, "Error codes") and the exceptions that carry them.

Codes from -1 to -1099 are upstream Mooncake's; -2000 and below are this project's. Each code has
an exception class named like the Java ``ErrorCode`` constant, in CamelCase with an ``Error``
suffix (``OBJECT_NOT_FOUND`` -> ``ObjectNotFoundError``,
``INTERNAL_ERROR`` -> ``InternalError``), so callers catch exactly what they handle.
"""

CODES = {
    "OK": 0,
    "INTERNAL_ERROR": -1,
    "BUFFER_OVERFLOW": -10,
    "SEGMENT_NOT_FOUND": -101,
    "SEGMENT_ALREADY_EXISTS": -102,
    "NO_AVAILABLE_HANDLE": -200,
    "INVALID_VERSION": -300,
    "INVALID_KEY": -400,
    "WRITE_FAIL": -500,
    "INVALID_PARAMS": -600,
    "INVALID_WRITE": -700,
    "INVALID_READ": -701,
    "INVALID_REPLICA": -702,
    "REPLICA_IS_NOT_READY": -703,
    "OBJECT_NOT_FOUND": -704,
    "OBJECT_ALREADY_EXISTS": -705,
    "OBJECT_HAS_LEASE": -706,
    "LEASE_EXPIRED": -707,
    "TRANSFER_FAIL": -800,
    "RPC_FAIL": -900,
    "UNAVAILABLE_IN_CURRENT_STATUS": -1010,
    "CLIENT_NOT_FOUND": -1300,
    "CHECKSUM_MISMATCH": -2001,
    "BUFFER_TOO_SMALL": -2002,
    "INVALID_TTL": -2003,
    "OBJECT_BEING_WRITTEN": -2004,
    "ACCESS_DENIED": -2005,
}
NAMES = {code: name for name, code in CODES.items()}


class StoreError(Exception):
    """A failed store call: ``code`` is the store's (negative) error code, ``name`` its ErrorCode name."""

    code = CODES["INTERNAL_ERROR"]
    name = "INTERNAL_ERROR"

    def __init__(self, message, code=None):
        if code is not None:
            self.code = code
            self.name = NAMES.get(code, "INTERNAL_ERROR")
        super().__init__(f"{self.name} ({self.code}): {message}")
        self.detail = message


def _class_name(name):
    camel = "".join(part.capitalize() for part in name.split("_"))
    return camel if camel.endswith("Error") else camel + "Error"


_BY_CODE = {}
for _name, _code in CODES.items():
    if _code == 0:
        continue
    _cls = type(_class_name(_name), (StoreError,), {"code": _code, "name": _name, "__module__": __name__})
    globals()[_cls.__name__] = _cls
    _BY_CODE[_code] = _cls


def error(code, message):
    """The exception for ``code``; a code this client does not know is an ``InternalError`` keeping the number."""
    cls = _BY_CODE.get(code)
    if cls is None:
        return InternalError(f"unknown error code {code}: {message}", code=code)  # noqa: F821 (made above)
    return cls(message)


def error_named(name, message):
    """The exception for an ErrorCode name, as batch results (``OpResult.error``) carry it."""
    return error(CODES.get(name, CODES["INTERNAL_ERROR"]), message)
