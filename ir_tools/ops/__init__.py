from .kernels import adaptive_avg_pool, avg_pool

__all__ = ["adaptive_avg_pool", "avg_pool"]
