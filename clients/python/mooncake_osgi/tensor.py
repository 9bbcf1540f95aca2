"""The Mooncake tensor object: a 304-byte little-endian header, then the payload (row-major,
contiguous). Byte for byte the format of ``connectors/epd-api`` ``TensorHeader`` (its golden dump,
``golden-f32-2x3.hex``, is checked by ``tests/test_tensor.py``):

====== ==== =====================================================================
offset size contents
====== ==== =====================================================================
0      40   u32 magic 0x4D4F4F4E, u16 version 1, u16 header size 304, i32 dtype,
            i32 ndim (1..8), u32 layout kind (0 dense), u32 flags (0),
            u64 data offset (304), u64 data bytes
40     64   8 x i64 shape, dimensions past ndim -1
104    64   8 x i64 local shape (the shape, for an unsharded tensor)
168    136  reserved and axes, zero
====== ==== =====================================================================

numpy arrays are handled without torch; torch tensors (CPU) where torch is installed.
"""

import struct

import numpy as np

SIZE = 304
MAGIC = 0x4D4F4F4E
VERSION = 1
MAX_DIMS = 8
_FIXED = struct.Struct("<IHHiiIIQQ")
_DIMS = struct.Struct("<8q")

# dtype code -> numpy dtype name (bf16 and the fp8 kinds have no numpy type: their payload is raw bytes)
NUMPY_DTYPES = {0: "float32", 1: "float64", 2: "int8", 3: "uint8", 4: "int16", 5: "uint16", 6: "int32",
                7: "uint32", 8: "int64", 9: "uint64", 10: "bool", 11: "float16"}
ELEMENT_BYTES = {0: 4, 1: 8, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 4, 8: 8, 9: 8, 10: 1, 11: 2, 12: 2, 13: 1, 14: 1}
_CODE_OF_NUMPY = {np.dtype(name): code for code, name in NUMPY_DTYPES.items()}
TORCH_DTYPES = {0: "float32", 1: "float64", 2: "int8", 3: "uint8", 4: "int16", 5: "uint16", 6: "int32",
                7: "uint32", 8: "int64", 9: "uint64", 10: "bool", 11: "float16", 12: "bfloat16",
                13: "float8_e4m3fn", 14: "float8_e5m2"}


class TensorFormatError(ValueError):
    """An object that is not a valid tensor object, saying what is wrong."""


def encode_header(dtype_code, shape, local_shape=None):
    shape = [int(d) for d in shape]
    local = [int(d) for d in (local_shape if local_shape is not None else shape)]
    if not 1 <= len(shape) <= MAX_DIMS or len(local) != len(shape):
        raise TensorFormatError(f"a tensor has 1 to {MAX_DIMS} dimensions and a local shape of as many, not {shape}")
    if dtype_code not in ELEMENT_BYTES:
        raise TensorFormatError(f"unknown dtype code {dtype_code}")
    if any(d < 0 for d in shape) or any(not 0 <= l <= d for l, d in zip(local, shape)):
        raise TensorFormatError(f"bad shape {shape}, local {local}")
    data_bytes = ELEMENT_BYTES[dtype_code]
    for d in local:
        data_bytes *= d
    pad = [-1] * (MAX_DIMS - len(shape))
    header = bytearray(SIZE)
    _FIXED.pack_into(header, 0, MAGIC, VERSION, SIZE, dtype_code, len(shape), 0, 0, SIZE, data_bytes)
    _DIMS.pack_into(header, 40, *(shape + pad))
    _DIMS.pack_into(header, 104, *(local + pad))
    return bytes(header)


def decode_header(buf):
    """(dtype code, shape, local shape, data bytes) of a validated header at the start of ``buf``."""
    view = memoryview(buf).cast("B")
    if len(view) < SIZE:
        raise TensorFormatError(f"object of {len(view)} bytes is shorter than a tensor header")
    magic, version, size, dtype, ndim, layout, flags, offset, data_bytes = _FIXED.unpack_from(view, 0)
    if magic != MAGIC:
        raise TensorFormatError(f"not a tensor object: magic {magic:#x}")
    if version != VERSION or size != SIZE:
        raise TensorFormatError(f"tensor header version {version} of {size} bytes; this reader knows {VERSION} of {SIZE}")
    if dtype not in ELEMENT_BYTES:
        raise TensorFormatError(f"unknown dtype code {dtype}")
    if not 1 <= ndim <= MAX_DIMS:
        raise TensorFormatError(f"ndim {ndim} is not 1 to {MAX_DIMS}")
    if layout != 0 or flags != 0:
        raise TensorFormatError(f"layout kind {layout} / flags {flags:#x}: version 1 knows dense and no flags")
    if offset != SIZE:
        raise TensorFormatError(f"data offset {offset} (the payload follows the header, at {SIZE})")
    dims = _DIMS.unpack_from(view, 40)
    local = _DIMS.unpack_from(view, 104)
    if any(d != -1 for d in dims[ndim:] + local[ndim:]):
        raise TensorFormatError(f"a dimension past ndim {ndim} is not -1")
    if any(view[168:SIZE]):
        raise TensorFormatError("reserved header bytes are not zero")
    if encode_header(dtype, dims[:ndim], local[:ndim]) != bytes(view[:SIZE]):
        raise TensorFormatError(f"data bytes {data_bytes} do not match shape {list(local[:ndim])}")
    return dtype, list(dims[:ndim]), list(local[:ndim]), data_bytes


def numpy_parts(array):
    """(header, payload view) of a numpy array, the payload without a copy when it is contiguous."""
    array = np.ascontiguousarray(array)
    code = _CODE_OF_NUMPY.get(array.dtype.newbyteorder("=") if array.dtype.byteorder == ">" else array.dtype)
    if code is None:
        raise TensorFormatError(f"numpy dtype {array.dtype} has no tensor dtype code")
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    shape = array.shape if array.ndim else (1,)
    return encode_header(code, shape), memoryview(array.reshape(-1).view(np.uint8))


def to_numpy(obj):
    """The numpy array of a tensor object (a view of ``obj`` when its dtype has a numpy type)."""
    dtype, shape, local, data_bytes = decode_header(obj)
    view = memoryview(obj).cast("B")
    if len(view) != SIZE + data_bytes:
        raise TensorFormatError(f"object of {len(view)} bytes; its header says {SIZE + data_bytes}")
    if dtype not in NUMPY_DTYPES:
        raise TensorFormatError(f"dtype code {dtype} has no numpy type; read it with torch")
    return np.frombuffer(view, dtype=np.dtype(NUMPY_DTYPES[dtype]).newbyteorder("<"), offset=SIZE).reshape(local)


def is_torch(value):
    return type(value).__module__.startswith("torch") and type(value).__name__ == "Tensor"


def torch_parts(tensor):
    """(header, payload view) of a CPU torch tensor."""
    import torch

    names = {getattr(torch, name): code for code, name in TORCH_DTYPES.items() if hasattr(torch, name)}
    code = names.get(tensor.dtype)
    if code is None:
        raise TensorFormatError(f"torch dtype {tensor.dtype} has no tensor dtype code")
    if tensor.device.type != "cpu":
        tensor = tensor.cpu()
    tensor = tensor.contiguous()
    shape = tuple(tensor.shape) if tensor.dim() else (1,)
    payload = tensor.reshape(-1).view(torch.uint8).numpy()
    return encode_header(code, shape), memoryview(payload)


def to_torch(obj):
    import torch

    dtype, shape, local, data_bytes = decode_header(obj)
    view = memoryview(obj).cast("B")
    if len(view) != SIZE + data_bytes:
        raise TensorFormatError(f"object of {len(view)} bytes; its header says {SIZE + data_bytes}")
    raw = torch.frombuffer(view, dtype=torch.uint8, offset=SIZE) if data_bytes else torch.empty(0, dtype=torch.uint8)
    return raw.view(getattr(torch, TORCH_DTYPES[dtype])).reshape(local)
