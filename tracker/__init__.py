"""tracker: how far behind CUDA is each accelerator software regime, from public evidence."""

__version__ = "0.1.0"
