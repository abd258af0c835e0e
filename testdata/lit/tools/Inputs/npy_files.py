# Writes the .npy/.npz files hlo-run-numpy.test reads, with NumPy itself.
# Usage: python3 npy_files.py DIR [ml_dtypes]
import sys

import numpy as np

out = sys.argv[1]
np.save(f"{out}/f32.npy", np.array([1, -2.5, np.inf, -0.0, 3e-5], np.float32))
np.save(f"{out}/f32_big_endian.npy", np.array([1, 2, 3, 4, 5], ">f4"))
np.save(f"{out}/a_fortran.npy", np.asfortranarray(np.array([[1, 2], [3, 4]], np.float32)))
# Named after pass_through.hlo's parameters, in another order, compressed.
np.savez_compressed(f"{out}/named.npz", c=np.array([True, False, True]), a=np.array([[1, 2], [3, 4]], np.float32),
                    b=np.int32(-7))
# Unnamed (arr_0, arr_1, arr_2): taken in order.
np.savez(f"{out}/positional.npz", np.array([[5, 6], [7, 8]], np.float32), np.int32(9), np.array([False] * 3))
if len(sys.argv) > 2:
    import ml_dtypes
    # numpy.save records ml_dtypes types as raw void ('<V2', '<V1').
    np.save(f"{out}/bf16.npy", np.array([1, -2.5, 3], ml_dtypes.bfloat16))
    np.save(f"{out}/s4.npy", np.array([-8, -1, 7], ml_dtypes.int4))
