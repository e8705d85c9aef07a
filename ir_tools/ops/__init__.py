"""Op semantics: one OpSpec per op version (attributes, shape rule, kernel) and the opset table."""

from .kernels import adaptive_avg_pool, avg_pool

__all__ = ["adaptive_avg_pool", "avg_pool"]
