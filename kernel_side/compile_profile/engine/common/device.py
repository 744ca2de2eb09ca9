"""Which device a profile ran on and how the ``ProfileRun`` names it, how to wait for it, and the host memory free."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ...profile_run import Device


def run_device_type(tensor_devices: set[str], *, fallback: str) -> str:
    """Where the profiled code ran: CUDA if it used a CUDA tensor, CPU if it used only CPU tensors
    (also on a machine with a GPU in use elsewhere), else the fallback."""
    if "cuda" in tensor_devices:
        return "cuda"
    if "cpu" in tensor_devices:
        return "cpu"
    return fallback


def current_device_type() -> str:
    """Where torch is working when the profiled code shows no tensors: CUDA once it is initialised."""
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        return "cuda"
    return "cpu"


def device(device_type: str) -> Device:
    if device_type == "cuda":
        return Device(type="cuda", name=torch.cuda.get_device_name(), count=torch.cuda.device_count())
    return Device(type="cpu", name=cpu_name(), count=torch.get_num_threads())


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine() or "cpu"


def device_sync(device_type: str) -> Callable[[], None]:
    """What waits for the device's queued work: ``torch.cuda.synchronize`` on CUDA, nothing on CPU."""
    if device_type == "cuda":
        return torch.cuda.synchronize
    return lambda: None


def available_host_memory() -> int | None:
    """The bytes of host memory free for new allocations (Linux's MemAvailable); None where unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None
