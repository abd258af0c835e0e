"""Parsing, verifying, printing, passes and stats through the Python API."""
import numpy as np
import pytest

import hlo
from conftest import EXAMPLES

SQUARE = """HloModule square

ENTRY main {
  x = f32[3] parameter(0)
  ROOT y = f32[3] multiply(x, x)
}
"""


def test_text_is_a_fixed_point():
    m = hlo.parse(SQUARE)
    assert m.name == "square"
    assert hlo.parse(m.text).text == m.text
    assert "multiply(" in m.text
    assert str(m) == m.text


def test_entry_parameters_and_result():
    m = hlo.parse("""HloModule p
ENTRY main {
  x = f32[2,3] parameter(0)
  t = (s32[], bf16[4]) parameter(1)
  ROOT n = f32[2,3] negate(x)
}
""")
    x, t = m.entry_parameters
    assert x == hlo.Parameter("x", "f32[2,3]", np.dtype(np.float32), (2, 3))
    assert (t.name, t.shape, t.dtype, t.dims) == ("t", "(s32[], bf16[4])", None, None)
    assert m.result_shape == "f32[2,3]"


def test_load_reads_a_file_and_names_it_in_errors(tmp_path):
    m = hlo.load(EXAMPLES / "reduce_sum.hlo")
    assert [p.name for p in m.entry_parameters] == ["x", "y", "z"]
    bad = tmp_path / "bad.hlo"
    bad.write_text("ENTRY main {\n  ROOT x = f32[] parameter(0\n}\n")
    with pytest.raises(hlo.HloError) as e:
        hlo.load(bad)
    assert e.value.file == str(bad)
    assert str(e.value).startswith(f"{bad}:")
    with pytest.raises(hlo.HloError, match="cannot read"):
        hlo.load(tmp_path / "missing.hlo")


def test_syntax_error_points_at_the_bad_token():
    text = "ENTRY main {\n  x = f32[3] parameter(0)\n  ROOT y = f32[3] multiplyy(x, x)\n}\n"
    with pytest.raises(hlo.HloError) as e:
        hlo.parse(text, name="bad.hlo")
    line3 = text.splitlines()[2]
    assert (e.value.file, e.value.line, e.value.column) == ("bad.hlo", 3, line3.index("multiplyy") + 1)
    message = str(e.value)
    assert message.startswith(f"bad.hlo:3:{line3.index('multiplyy') + 1}: error:")
    assert "multiplyy" in message
    assert line3 in message.splitlines()  # the source line, then the caret
    assert message.splitlines()[2].strip() == "^"


def test_verifier_error_names_the_instruction():
    text = "ENTRY main {\n  x = f32[3] parameter(0)\n  ROOT y = f32[2] multiply(x, x)\n}\n"
    with pytest.raises(hlo.HloError) as e:
        hlo.parse(text)
    assert e.value.line == 3
    assert "y" in e.value.message and "f32[3]" in e.value.message


def test_stats_count_instructions_and_traffic():
    s = hlo.parse(SQUARE).stats()
    assert s["computations"] == 1
    assert s["instructions"] == 2
    assert s["per_opcode"] == {"parameter": 1, "multiply": 1}
    # The multiply is the one kernel: it reads x (3 floats) once and writes y.
    assert s["bytes_read"] == 12
    assert s["bytes_written"] == 12
    assert s["fusion_sizes"] == []


def test_run_passes_fuses_and_keeps_the_result():
    m = hlo.load(EXAMPLES / "reduce_sum.hlo")
    fused = hlo.run_passes(m, "cpu")
    assert "fusion" in fused.stats()["per_opcode"]
    assert "fusion" not in m.stats()["per_opcode"]  # passes return a new module
    args = [np.array(v, np.float32) for v in ([1, 2, 3, 4], [0.5, 1.5, -2, 3], [2, 2, 0.25, -1])]
    assert hlo.compile(fused, "interp")(*args) == np.float32(10.5)


def test_opt_runs_named_passes():
    m = hlo.parse("""HloModule times_one
ENTRY main {
  x = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT y = s32[] multiply(x, one)
}
""")
    simplified = hlo.opt(m, ["simplify", "dce"], verify_each=True)
    assert simplified.stats()["per_opcode"] == {"parameter": 1}
    assert hlo.opt(m, "simplify,dce").text == simplified.text
    names = [name for name, _ in hlo.passes()]
    assert "simplify" in names and "dce" in names and "fusion" in names


def test_unknown_pass_and_target_are_errors():
    m = hlo.parse(SQUARE)
    with pytest.raises(hlo.HloError, match="no-such-pass"):
        hlo.opt(m, ["no-such-pass"])
    with pytest.raises(hlo.HloError, match="no pass pipeline for target 'tpu'"):
        hlo.run_passes(m, "tpu")
    with pytest.raises(hlo.HloError, match="no engine 'tpu'"):
        hlo.compile(m, "tpu")
    assert set(hlo.engines()) >= {"interp", "cpu", "gpu", "gpu-host"}
