"""Running modules from Python: arrays in and out, every element type,
tuples, runtime sizes and errors, on every engine this machine runs. Each
expected value is worked by hand in the comment beside it."""
import threading

import ml_dtypes
import numpy as np
import pytest

import hlo
from conftest import EXAMPLES


def test_reduce_sum_example(engine):
    # x + y * z = {1, 2, 3, 4} + {1, 3, -0.5, -3} = {2, 5, 2.5, 1}, whose sum is 10.5.
    exe = hlo.compile(hlo.load(EXAMPLES / "reduce_sum.hlo"), engine)
    assert exe.engine == engine
    result = exe(np.array([1, 2, 3, 4], np.float32), np.array([0.5, 1.5, -2, 3], np.float32),
                 np.array([2, 2, 0.25, -1], np.float32))
    assert isinstance(result, np.ndarray)
    assert result.shape == () and result.dtype == np.float32
    assert result == 10.5


# add(x, x) per element type, on values whose double is exact in the type.
DOUBLED = [
    ("s8", np.int8, [1, -2, 3, 0]), ("s16", np.int16, [1, -2, 300, 0]), ("s32", np.int32, [1, -2, 3, 1 << 20]),
    ("s64", np.int64, [1, -2, 3, 1 << 40]), ("u8", np.uint8, [1, 2, 100, 0]), ("u16", np.uint16, [1, 2, 3, 30000]),
    ("u32", np.uint32, [1, 2, 3, 1 << 30]), ("u64", np.uint64, [1, 2, 3, 1 << 62]),
    ("f16", np.float16, [0.5, -1.5, 2, 0]), ("f32", np.float32, [0.5, -1.5, 2, 1e30]),
    ("f64", np.float64, [0.5, -1.5, 2, 1e300]), ("bf16", ml_dtypes.bfloat16, [0.5, -1.5, 2, 1e30]),
    ("f8e5m2", ml_dtypes.float8_e5m2, [0.5, -1.5, 2, 0]), ("f8e4m3fn", ml_dtypes.float8_e4m3fn, [0.5, -1.5, 2, 0]),
    ("f8e4m3", ml_dtypes.float8_e4m3, [0.5, -1.5, 2, 0]),
    ("f8e4m3fnuz", ml_dtypes.float8_e4m3fnuz, [0.5, -1.5, 2, 0]),
    ("f8e5m2fnuz", ml_dtypes.float8_e5m2fnuz, [0.5, -1.5, 2, 0]),
    ("f8e4m3b11fnuz", ml_dtypes.float8_e4m3b11fnuz, [0.5, -1.5, 2, 0]),
    ("f8e3m4", ml_dtypes.float8_e3m4, [0.5, -1.5, 2, 0]),
    ("f8e8m0fnu", ml_dtypes.float8_e8m0fnu, [0.5, 1, 2, 4]),  # powers of two only
    ("f4e2m1fn", ml_dtypes.float4_e2m1fn, [0.5, -1.5, 1, 0]),  # 2x: 1, -3, 2, 0
    ("f6e2m3fn", ml_dtypes.float6_e2m3fn, [0.5, -1.5, 2, 0]),
    ("f6e3m2fn", ml_dtypes.float6_e3m2fn, [0.5, -1.5, 2, 0]),
    ("s4", ml_dtypes.int4, [1, -2, 3, -4]),  # 2x: 2, -4, 6, -8, all in [-8, 7]
    ("u4", ml_dtypes.uint4, [1, 2, 3, 7]),  # 2x: 2, 4, 6, 14
    ("s2", ml_dtypes.int2, [0, -1, 0, -1]),  # 2x: 0, -2, 0, -2, in [-2, 1]
    ("u2", ml_dtypes.uint2, [0, 1, 1, 0]),  # 2x: 0, 2, 2, 0
]


@pytest.mark.parametrize("type_name,dtype,values", DOUBLED, ids=[t for t, _, _ in DOUBLED])
def test_every_element_type_round_trips(engine, type_name, dtype, values):
    m = hlo.parse(f"ENTRY main {{\n  x = {type_name}[4] parameter(0)\n  ROOT y = {type_name}[4] add(x, x)\n}}\n")
    assert m.entry_parameters[0].dtype == np.dtype(dtype)
    x = np.array(values, dtype=dtype)
    result = hlo.compile(m, engine)(x)
    assert result.dtype == np.dtype(dtype)
    expected = np.array([2 * v for v in values], dtype=dtype)
    assert result.tobytes() == expected.tobytes()


def test_pred_and_complex(engine):
    m = hlo.parse("""ENTRY main {
  p = pred[4] parameter(0)
  c = c64[2] parameter(1)
  np = pred[4] not(p)
  cc = c64[2] multiply(c, c)
  ROOT t = (pred[4], c64[2]) tuple(np, cc)
}
""")
    negated, squared = hlo.compile(m, engine)(np.array([True, False, True, False]),
                                              np.array([1 + 2j, 0.5j], np.complex64))
    assert negated.tolist() == [False, True, False, True]
    assert squared.tolist() == [-3 + 4j, -0.25 + 0j]  # (1+2i)^2 = 1 + 4i - 4; (i/2)^2 = -1/4


def test_tuples_in_and_out(engine):
    m = hlo.parse("""ENTRY main {
  t = (f32[2], s32[]) parameter(0)
  a = f32[2] get-tuple-element(t), index=0
  b = s32[] get-tuple-element(t), index=1
  na = f32[2] negate(a)
  seven = s32[] constant(7)
  nb = s32[] add(b, seven)
  inner = (s32[], f32[2]) tuple(nb, na)
  ROOT out = ((s32[], f32[2]), f32[2]) tuple(inner, a)
}
""")
    (b, na), a = hlo.compile(m, engine)((np.array([1.5, -2], np.float32), np.int32(5)))
    assert b == 12 and b.dtype == np.int32
    assert na.tolist() == [-1.5, 2] and a.tolist() == [1.5, -2]


def test_python_values_are_converted_to_the_parameter_type(engine):
    m = hlo.parse("ENTRY main {\n  x = s32[3] parameter(0)\n  y = f32[] parameter(1)\n"
                  "  cy = s32[] convert(y)\n  b = s32[3] broadcast(cy), dimensions={}\n"
                  "  ROOT r = s32[3] add(x, b)\n}\n")
    assert hlo.compile(m, engine)([1, 2, 3], 10).tolist() == [11, 12, 13]


def test_strided_and_fortran_arrays(engine):
    m = hlo.parse("ENTRY main {\n  x = f32[2,3] parameter(0)\n  ROOT y = f32[3,2] transpose(x), dimensions={1,0}\n}\n")
    exe = hlo.compile(m, engine)
    base = np.arange(12, dtype=np.float32).reshape(2, 6)
    strided = base[:, ::2]  # {{0, 2, 4}, {6, 8, 10}}
    assert exe(strided).tolist() == [[0, 6], [2, 8], [4, 10]]
    fortran = np.asfortranarray(np.array([[1, 2, 3], [4, 5, 6]], np.float32))
    assert exe(fortran).tolist() == [[1, 4], [2, 5], [3, 6]]


def test_results_are_numpy_arrays_that_own_their_values(engine):
    m = hlo.parse("ENTRY main {\n  x = f32[1000] parameter(0)\n  ROOT y = f32[1000] negate(x)\n}\n")
    exe = hlo.compile(m, engine)
    x = np.arange(1000, dtype=np.float32)
    y = exe(x)
    assert y.base is not None  # handed over without a copy: the literal is the array's base
    del exe, m  # the array outlives the executable
    y[0] = 5
    assert y[0] == 5 and y[999] == -999 and x[999] == 999


def test_runtime_sizes(engine):
    m = hlo.parse("ENTRY main {\n  x = f32[<=4] parameter(0)\n  ROOT y = f32[<=4] negate(x)\n}\n")
    exe = hlo.compile(m, engine)
    assert exe(np.array([1, 2, 3], np.float32)).tolist() == [-1, -2, -3]
    assert exe(np.array([1, 2, 3, 4], np.float32)).tolist() == [-1, -2, -3, -4]
    with pytest.raises(hlo.HloError, match=r"shape \(4,\) \(or less where <=\)"):
        exe(np.zeros(5, np.float32))


def test_argument_errors_name_the_parameter(engine):
    exe = hlo.compile(hlo.load(EXAMPLES / "reduce_sum.hlo"), engine)
    x = np.zeros(4, np.float32)
    with pytest.raises(hlo.HloError, match="takes 3 arguments"):
        exe(x, x)
    with pytest.raises(hlo.HloError, match=r"argument 1 \(parameter 'y', f32\[4\]\) takes float32 values but the "
                                           r"array holds float64 \(convert it with .astype\(float32\)\)"):
        exe(x, np.zeros(4), x)
    with pytest.raises(hlo.HloError, match=r"argument 2 \(parameter 'z', f32\[4\]\) has shape \(4,\) but the array "
                                           r"has shape \(2, 2\)"):
        exe(x, x, np.zeros((2, 2), np.float32))
    with pytest.raises(hlo.HloError, match="argument 0"):
        exe("not a number", x, x)


def test_run_errors_are_raised_not_hung(engine):
    m = hlo.parse("""HloModule forever
cond {
  c = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  b = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(b, one)
}
ENTRY main {
  i = s32[] parameter(0)
  ROOT w = s32[] while(i), condition=cond, body=body
}
""")
    with pytest.raises(hlo.HloError, match="5"):
        hlo.compile(m, engine, max_while_iterations=5)(0)


def test_runs_from_several_threads(engine):
    m = hlo.parse("ENTRY main {\n  x = f32[4096] parameter(0)\n  ROOT y = f32[4096] multiply(x, x)\n}\n")
    exe = hlo.compile(m, engine)
    x = np.arange(4096, dtype=np.float32)
    results = [None] * 4

    def run(i):
        results[i] = exe(x + i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, r in enumerate(results):
        assert r.tobytes() == ((x + i) * (x + i)).tobytes()  # small integers squared: exact in f32


def test_types_without_a_numpy_dtype_are_a_clear_error():
    if hasattr(ml_dtypes, "int1"):
        pytest.skip("this ml_dtypes has int1")
    exe = hlo.compile(hlo.parse("ENTRY main {\n  x = s1[2] parameter(0)\n  ROOT y = s1[2] negate(x)\n}\n"), "interp")
    with pytest.raises(hlo.HloError, match="ml_dtypes.int1"):
        exe([0, 0])


def test_one_bit_types(engine):
    if not hasattr(ml_dtypes, "int1"):
        pytest.skip("this ml_dtypes has no int1 and uint1")
    m = hlo.parse("ENTRY main {\n  s = s1[4] parameter(0)\n  u = u1[4] parameter(1)\n  cs = s1[4] copy(s)\n"
                  "  nu = u1[4] not(u)\n  ROOT t = (s1[4], u1[4]) tuple(cs, nu)\n}\n")
    s, u = hlo.compile(m, engine)(np.array([0, -1, -1, 0], ml_dtypes.int1), np.array([0, 1, 1, 0], ml_dtypes.uint1))
    assert s.tolist() == [0, -1, -1, 0]  # s1 holds 0 and -1
    assert u.tolist() == [1, 0, 0, 1]  # not of one bit
