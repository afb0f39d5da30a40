"""Delivered performance: public benchmark results against the best NVIDIA result of the same
round."""
