"""The public surface of drasim.cel."""
import drasim.cel


def test_all():
    """__all__ lists exactly the public contract other packages code against."""
    assert sorted(drasim.cel.__all__) == sorted([
        "CelCompileError", "CelRuntimeError", "CompiledSelector", "DeviceInput",
        "compile_selector", "device_input", "validate_selector"])
    for name in drasim.cel.__all__:
        assert getattr(drasim.cel, name)
