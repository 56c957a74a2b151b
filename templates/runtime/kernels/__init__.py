"""Host derivative kernels: vectorised numpy functions the core calls in the same host round trip as SciPy."""
