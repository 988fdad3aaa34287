"""The CUDA kernels are the CPU kernels' own source: same keys, same table-policy choices.

CI has no GPU, so the kernels run under numba's CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``, set before numba is imported, hence a
subprocess) on small inputs, against the CPU kernels.  ``benchmarks/gpu.py``
runs the same comparison at scale on a real GPU, then measures speed.
"""

import glob
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from helpers import needs_namespaces

import cpoker
from cpoker.cli import main
from cpoker.game.devices import _simulated

ROOT = Path(__file__).resolve().parents[2]
HAND = "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"


@pytest.mark.slow
def test_cuda_kernels_match_the_cpu_kernels_under_the_simulator():
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, str(ROOT / "tests" / "support" / "cuda_check.py"), "300", "3"], env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report.pop("rows") == 300 and report.pop("hands") == 3
    assert all(report.values()), report


# the simulator's threads switched as often as Python allows: both races kernels.cuda.simulator_proof closes failed
# here every time (a leaf's ``cuda.clz`` read from the real module; globals growing a warning registry mid-walk)
SWITCHING = """
import sys
sys.setswitchinterval(1e-6)
import cuda_check
from cpoker.game.dealing import sample_hands
from cpoker.strategies.policy import arrange_by_tables, default_tables

sample = sample_hands(16, 11)
gpu, cpu = arrange_by_tables(sample, default_tables(), "cuda"), arrange_by_tables(sample, default_tables())
print(cuda_check.rank_leaves_equal(), (gpu[0] == cpu[0]).all() and (gpu[1] == cpu[1]).all())
"""


@pytest.mark.slow
def test_the_simulator_threads_switching_at_every_instruction_give_the_cpus_answers():
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": f"{ROOT}:{ROOT / 'tests' / 'support'}"}
    result = subprocess.run([sys.executable, "-c", SWITCHING], env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["True", "True"]


def test_cpokers_kernels_are_compiled_without_fused_multiply_adds():
    """NVVM fuses multiply-adds (one rounding where the CPU rounds twice) unless asked ``fma=0``: cpoker's modules
    are, so that corrected and bonus values round as on the CPU; other modules are left alone (and fastmath,
    which numba-cuda applies after, still fuses).
    (Compiling for real needs NVVM: the PTX of the build's kernels then holds no ``fma.rn``.)"""
    from cpoker._kernels.cuda import import_cuda, without_contraction

    seen = []
    compile_ir = without_contraction(lambda llvmir, **options: seen.append(options))
    compile_ir('define void @"_ZN6cpoker8_kernels4cuda13certify_listsE"()', opt=3)
    compile_ir(["define void @other()"], opt=3)
    compile_ir(["define void @other()", "define void @_ZN6cpoker1fE()"], fastmath=True)
    assert seen == [{"opt": 3, "fma": False}, {"opt": 3}, {"fastmath": True, "fma": False}]
    import_cuda()
    from numba.cuda.cudadrv import nvvm

    assert nvvm.compile_ir.without_contraction


FIRST_LAUNCH = """
import contextlib, json
import numpy as np
import cpoker.game.devices as devices
from cpoker.game.evaluation import key_of_ids
notices = []

@contextlib.contextmanager
def recorded():
    notices.append("compiling")
    yield

devices.compile_notice = recorded
hands = np.array([[0, 13, 26, 1, 14], [5, 6, 7, 8, 9]], np.uint8)
first = devices.keys_cuda(hands).tolist()
again = devices.keys_cuda(hands).tolist()
print(json.dumps({"notices": len(notices), "keys": first == again == [key_of_ids(list(h)) for h in hands]}))
"""


def test_a_gpu_kernels_first_launch_and_no_other_runs_under_the_cold_start_notice():
    """The command line's "compiling kernels" notice (shown on a terminal when a kernel call takes long) covers a
    GPU kernel's first launch in a process, where it compiles or loads from the disk cache, and no later one."""
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", FIRST_LAUNCH], env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"notices": 1, "keys": True}


def _cuda_toolchain_missing() -> "str | None":
    """Why kernels cannot really compile for CUDA here (with or without a GPU), or ``None`` when they can: numba-cuda,
    NVIDIA's NVVM and NVIDIA's NVRTC (the ``cuda`` extra without a CUDA toolkit has neither library)."""
    import importlib.util

    if importlib.util.find_spec("numba_cuda") is None:
        return "needs numba-cuda (the cuda extra)"
    try:
        from cpoker._kernels.cuda import import_cuda
        from cpoker.game.devices import _nvvm_found

        import_cuda()
    except Exception as error:  # noqa: BLE001 -- numba-cuda fails as it is imported without the CUDA libraries
        return f"numba-cuda cannot be imported here: {type(error).__name__}"
    if not _nvvm_found():
        return "needs NVIDIA's NVVM (a CUDA toolkit, or the cuda12/cuda13 extra)"
    try:
        from numba.cuda.cudadrv import nvrtc
    except ImportError:  # a numba-cuda that does not use NVRTC
        return None
    # loading NVRTC: an object of it (older numba-cuda), or the compute capabilities it supports (newer)
    probe = getattr(nvrtc, "NVRTC", None) or getattr(nvrtc, "get_supported_ccs", None)
    try:
        if probe is not None:
            probe()
    except Exception as error:  # noqa: BLE001 -- "Failure finding libnvrtc.so", or a library that cannot load
        return f"needs NVIDIA's NVRTC (a CUDA toolkit, or the cuda12/cuda13 extra): {str(error)[:80]}"
    return None


@pytest.mark.gpu
@pytest.mark.skipif(_cuda_toolchain_missing() is not None, reason=str(_cuda_toolchain_missing()))
def test_cuda_kernels_compile_once_then_every_later_process_loads_them(tmp_path):
    """numba-cuda's disk cache, keyed by cpoker's kernel sources (``cache_cuda_kernel``), across real processes:
    the first compiles, the next loads the same code; a change of the sources compiles again; a damaged cache
    file is compiled again with a warning, and written over; one that cannot be written is no error."""
    names = "gather_unsettled,count_strengths,replace_choices"

    def run(*options):
        result = subprocess.run([sys.executable, str(ROOT / "tests" / "support" / "cuda_cache_check.py"), names,
        *options],
                                env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)},
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr[-2000:]
        report = json.loads(result.stdout.strip().splitlines()[-1])
        assert all(kernel["cache"].startswith(str(tmp_path)) for kernel in report.values())
        return {name: (kernel["hits"], kernel["misses"]) for name, kernel in report.items()}, report, result.stderr

    compiled, first, _ = run()
    assert set(compiled.values()) == {(0, 1)}
    loaded, second, _ = run()
    assert set(loaded.values()) == {(1, 0)}
    assert all(second[name]["ptx"] == first[name]["ptx"] for name in first)
    assert set(run("--digest", "other sources")[0].values()) == {(0, 1)}  # stale: compiled again
    assert set(run("--digest", "other sources")[0].values()) == {(1, 0)}
    for data in tmp_path.rglob("*.nbc"):
        if "build_kernels" in data.name:
            data.write_bytes(data.read_bytes()[:100])  # cut short, as by a full disk
    damaged, _, stderr = run("--digest", "other sources")
    assert set(damaged.values()) == {(0, 1)} and "could not be read" in stderr
    assert set(run("--digest", "other sources")[0].values()) == {(1, 0)}
    for index in tmp_path.rglob("*.nbi"):
        if "build_kernels" in index.name:
            index.unlink()
            index.mkdir()  # an index that can be neither read nor written (even by root): compiled, and run
    assert set(run("--digest", "other sources")[0].values()) == {(0, 1)}


def test_device_twins_read_no_module_level_array():
    """A global array read by a device function becomes a constant-memory copy per function (64 KiB in all):
    real GPUs refused the kernels once for that ("too much global constant data"), which the simulator cannot see.
    The twins read tables only through arguments, or through the leaves that cuda.py replaces."""
    import numpy as np

    from cpoker._kernels.cuda import GPU_LEAVES, TWINNED

    for module, names in TWINNED.items():
        for name in names:
            code = getattr(module, name).py_func.__code__
            arrays = [global_name for global_name in code.co_names
                      if isinstance(getattr(module, global_name, None), np.ndarray)]
            assert not arrays, f"{module.__name__}.{name} reads the module-level array(s) {arrays}"
    from cpoker._kernels import evaluate

    for name in GPU_LEAVES:  # each leaf has its CPU counterpart of the same name
        assert hasattr(getattr(evaluate, name), "py_func")


def _has_gpu() -> bool:
    try:
        from cpoker.game.devices import cuda_runtime

        cuda_runtime()
        return True
    except cpoker.OptionError:
        return False


@needs_namespaces
def test_without_nvvm_device_cuda_says_so_and_how_to_install_it_before_any_work(tmp_path):
    """A machine without NVIDIA's NVVM and CUDA libraries (``pip install numba-cuda`` alone, no CUDA toolkit):
    made for real in a private mount namespace, an empty file system over each CUDA toolkit folder.  The
    command stops at once, in one line, naming the extras that bring them (numba's own CUDA target failed at
    the first kernel launch, deep inside numba; numba-cuda fails as it is imported)."""
    toolkits = [path for path in glob.glob("/usr/local/cuda*") if os.path.isdir(path) and not os.path.islink(path)]
    hide = "".join(f"mount -t tmpfs tmpfs {path} && " for path in toolkits)
    env = {key: value for key, value in os.environ.items() if key not in ("CUDA_HOME", "CUDA_PATH")}
    env.update(PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(tmp_path))
    command = f"{hide}exec {sys.executable} -m cpoker solve '{HAND}' --device cuda --samples 10"
    done = subprocess.run(["unshare", "-rm", "sh", "-c", command], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=600)
    assert done.returncode == 2 and done.stdout == "", done.stderr[-2000:]
    assert done.stderr.startswith("cpoker: error: device='cuda' needs") and done.stderr.count("\n") == 1
    assert "cpoker[cuda12]" in done.stderr
    import importlib.util

    if importlib.util.find_spec("numba_cuda") is None:  # numba's own CUDA target: NVVM is looked for
        assert "NVVM compiler, which was not found" in done.stderr
    else:  # numba-cuda loads the CUDA runtime as it is imported, and fails there
        assert "numba-cuda and the CUDA libraries it loads" in done.stderr


@pytest.mark.skipif(_has_gpu(), reason="this machine has a GPU")
def test_without_a_gpu_device_cuda_is_a_clear_error(capsys):
    with pytest.raises(cpoker.OptionError, match="device='cuda' needs"):
        cpoker.evaluate_batch([[0, 1, 2, 3, 4]], device="cuda")
    with pytest.raises(cpoker.OptionError, match="device must be 'cpu' or 'cuda'"):
        cpoker.simulate("2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac", device="tpu")
    status = main(["solve", HAND, "--device", "cuda", "--samples", "10"])
    _, err = capsys.readouterr()
    assert status == 2 and err.startswith("cpoker: error: device='cuda' needs") and err.count("\n") == 1


def test_a_gpu_failure_that_numba_reports_is_a_device_error_that_names_it():
    """How cpoker reads numba's report of a CUDA driver failure, on numba's own exception classes (here no GPU
    can fail: the next test makes a real one run out of memory).  Out of memory is named, with what to do; any
    other failure by the driver's code; cpoker's own errors and bugs pass unchanged."""
    from numba.cuda.cudadrv.driver import CudaAPIError
    from numba.cuda.cudadrv.error import CudaDriverError

    from cpoker.game.devices import _calls_the_gpu

    def calling_the_gpu(error: Exception):
        @_calls_the_gpu
        def call():
            raise error

        return call

    out_of_memory = CudaAPIError(2, "Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY")
    with pytest.raises(cpoker.DeviceError, match=r"^the GPU ran out of memory \(CUDA_ERROR_OUT_OF_MEMORY\): "
                                                 r"another process may be using it; .* or use device='cpu'$") as raised:
        calling_the_gpu(out_of_memory)()
    assert raised.value.__cause__ is out_of_memory and isinstance(raised.value, RuntimeError)
    with pytest.raises(cpoker.DeviceError, match=r"^the GPU failed \(Call to cuLaunchKernel results in "
                                                 r"CUDA_ERROR_ILLEGAL_ADDRESS\); .* in a new process"):
        calling_the_gpu(CudaAPIError(700, "Call to cuLaunchKernel results in CUDA_ERROR_ILLEGAL_ADDRESS"))()
    with pytest.raises(cpoker.DeviceError, match=r"^the GPU failed \(CUDA initialized before forking\)"):
        calling_the_gpu(CudaDriverError("CUDA initialized before forking"))()
    # numba-cuda 0.30 launches through NVIDIA's cuda.core, which raises its own CUDAError, the driver's name first
    # (seen on an H200: the build below ended in a traceback)
    cuda_core_error = type("CUDAError", (Exception,), {"__module__": "cuda.core._utils.cuda_utils"})
    out_of_memory = cuda_core_error("CUDA_ERROR_OUT_OF_MEMORY: The API call failed because it was unable to allocate "
                                    "enough memory or other resources to perform the requested operation.")
    with pytest.raises(cpoker.DeviceError, match=r"^the GPU ran out of memory \(CUDA_ERROR_OUT_OF_MEMORY\): "):
        calling_the_gpu(out_of_memory)()
    with pytest.raises(cpoker.DeviceError, match=r"^the GPU failed \(CUDA_ERROR_LAUNCH_FAILED: an unspecified"):
        calling_the_gpu(cuda_core_error("CUDA_ERROR_LAUNCH_FAILED: an unspecified launch failure occurred"))()
    a_namesake = type("CUDAError", (Exception,), {"__module__": "someone_else"})("CUDA_ERROR_OUT_OF_MEMORY")
    for other in (cpoker.OptionError("hands must be ..."), ZeroDivisionError("a bug"), MemoryError(), a_namesake):
        with pytest.raises(type(other)) as raised:
            calling_the_gpu(other)()
        assert raised.value is other


@given(st.integers(1, 2 * 65_535 * 16 * 128), st.sampled_from([32, 64, 128, 256]))
def test_a_launch_has_a_thread_a_row_and_never_so_few_blocks_that_numba_cuda_warns_the_user(rows, threads):
    """numba-cuda warns on standard error of every launch under 128 blocks (seen on an H200: each small launch of
    a build printed two lines); cpoker's launches have at least that many blocks, one thread a row up to the
    largest grid, whose kernels step through the rows past it.  Under the simulator, one thread a row."""
    from unittest import mock

    from cpoker.game import devices

    with mock.patch.object(devices, "_simulated", return_value=False):
        blocks = devices._grid(rows, threads)
    assert devices.MIN_BLOCKS == 128 <= blocks <= 65_535 * 16
    assert blocks * threads >= rows or blocks == 65_535 * 16
    assert blocks == max(128, -(-rows // threads)) or blocks == 65_535 * 16
    with mock.patch.object(devices, "_simulated", return_value=True):
        assert devices._grid(rows, threads) == min(-(-rows // threads), 65_535 * 16)


# another process holding all of a GPU's memory but 1 GiB, until its standard input closes
HOLD_THE_GPU = """
import sys
from numba import cuda
held = cuda.device_array(cuda.current_context().get_memory_info()[0] - (1 << 30), dtype="uint8")
print("holding", held.nbytes, flush=True)
sys.stdin.read()
"""


@pytest.mark.gpu
@pytest.mark.skipif(not _has_gpu() or _simulated(), reason="needs an NVIDIA GPU")
def test_a_build_on_a_gpu_another_process_fills_stops_in_one_line_with_status_1(tmp_path):
    """A shared GPU: another process holds all its memory but 1 GiB, and a build that needs more (its policy
    kernel alone reserves its threads' local memory, gigabytes on a large GPU) stops with one line naming the
    failure and status 1 (not the user's input), no traceback and no file (numba-cuda's CudaAPIError
    traceback before; then cuda.core's CUDAError, found by this test on an H200).  benchmarks/gpu.py --target
    runs this test on the GPU it is lent."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD_THE_GPU], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    out = tmp_path / "tables.npz"
    try:
        assert holder.stdout.readline().startswith("holding")
        done = subprocess.run([sys.executable, "-m", "cpoker", "tables", "build", "--device", "cuda", "--hands",
                               "10000000", "--max-iterations", "1", "--removal-rounds", "0", "--removal-deals", "0",
                               "--out", str(out), "--quiet"], capture_output=True, text=True, timeout=600,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        holder.kill()
        holder.wait()
    print(done.stderr)
    assert done.returncode == 1 and done.stdout == "", done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.stderr.splitlines()[-1].startswith("cpoker: error: the GPU ran out of memory (CUDA_ERROR_OUT_OF_MEMORY")
    assert not out.exists()
