"""NumPy dtypes of HLO's element types.

NumPy's own types where it has them; bfloat16, the float8/float6/float4
family and the sub-byte integers from ml_dtypes (one value a byte, as
ml_dtypes stores them). The names are those hlo/npy.cc writes into .npy
files, so arrays read from hlo-run's files have the same dtypes.
"""
import numpy as np

from ._errors import HloError

_NUMPY = {
    "pred": np.bool_,
    "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "c64": np.complex64, "c128": np.complex128,
}

_ML_DTYPES = {
    "bf16": "bfloat16",
    "f8e5m2": "float8_e5m2", "f8e4m3": "float8_e4m3", "f8e4m3fn": "float8_e4m3fn",
    "f8e4m3b11fnuz": "float8_e4m3b11fnuz", "f8e5m2fnuz": "float8_e5m2fnuz",
    "f8e4m3fnuz": "float8_e4m3fnuz", "f8e3m4": "float8_e3m4", "f8e8m0fnu": "float8_e8m0fnu",
    "f4e2m1fn": "float4_e2m1fn", "f6e2m3fn": "float6_e2m3fn", "f6e3m2fn": "float6_e3m2fn",
    "s4": "int4", "u4": "uint4", "s2": "int2", "u2": "uint2", "s1": "int1", "u1": "uint1",
}


def dtype_of(type_name):
    """The numpy dtype of HLO element type ``type_name`` ("f32", "bf16", ...)."""
    if type_name in _NUMPY:
        return np.dtype(_NUMPY[type_name])
    if type_name not in _ML_DTYPES:
        raise HloError(f"element type {type_name} has no numpy dtype")
    name = _ML_DTYPES[type_name]
    try:
        import ml_dtypes
    except ImportError:
        raise HloError(f"element type {type_name} needs the ml_dtypes package (pip install ml_dtypes)") from None
    if not hasattr(ml_dtypes, name):
        raise HloError(f"element type {type_name} needs ml_dtypes.{name}, which ml_dtypes "
                       f"{ml_dtypes.__version__} does not have")
    return np.dtype(getattr(ml_dtypes, name))
