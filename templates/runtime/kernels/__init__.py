"""jaxsci's own derivative kernels: vectorised numpy, evaluated on the host like SciPy (specs/kernels/)."""
