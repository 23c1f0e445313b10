"""The Thunder and PyTorch versions peakorder.thunder is written and tested against.

peakorder.thunder reads Thunder's traces and plugs into its executor and transform interfaces,
which change between releases; lightning-thunder 0.2.6 itself does not import with newer torch
(`torch.Tensor.align_as` is gone in 2.15). An unsupported pair is refused with one message that
names both versions and the supported ones, at import and again when `jit` is called.
"""

from __future__ import annotations

SUPPORTED_THUNDER = ("0.2.6",)
# torch releases 0.2.6 is tested with here (scripts/setup.d/56-thunder.sh pins 2.9.1).
SUPPORTED_TORCH_MINOR = ("2.9",)


class UnsupportedVersionError(ImportError):
    """Thunder or PyTorch is missing or a version peakorder.thunder does not support."""


def _supported() -> str:
    return (
        f"lightning-thunder {' or '.join(SUPPORTED_THUNDER)} with torch "
        f"{' or '.join(v + '.x' for v in SUPPORTED_TORCH_MINOR)}"
    )


def torch_version() -> str:
    try:
        import torch
    except ImportError as e:
        raise UnsupportedVersionError(
            f"peakorder.thunder needs PyTorch ({_supported()}); importing torch failed: {e}"
        ) from None
    return str(torch.__version__)


def check_torch(version: str) -> None:
    minor = ".".join(version.split("+")[0].split(".")[:2])
    if minor not in SUPPORTED_TORCH_MINOR:
        raise UnsupportedVersionError(
            f"peakorder.thunder supports {_supported()}; found torch {version}"
        )


def check_thunder(version: str, torch_ver: str) -> None:
    if version not in SUPPORTED_THUNDER:
        raise UnsupportedVersionError(
            f"peakorder.thunder supports {_supported()}; found lightning-thunder {version} "
            f"with torch {torch_ver}"
        )


def check() -> None:
    """Raises UnsupportedVersionError unless the installed torch and Thunder are supported.

    torch is checked first: an unsupported torch may make `import thunder` itself fail, and that
    failure is reported with both versions rather than as Thunder's own AttributeError."""
    tv = torch_version()
    check_torch(tv)
    try:
        import thunder
    except Exception as e:  # ImportError, or AttributeError from a torch Thunder cannot use
        raise UnsupportedVersionError(
            f"peakorder.thunder needs {_supported()}; importing thunder (with torch {tv}) failed: "
            f"{type(e).__name__}: {e}"
        ) from None
    check_thunder(str(getattr(thunder, "__version__", "unknown")), tv)
