"""Host derivative kernels: vectorised numpy parameter derivatives of SciPy special functions."""
