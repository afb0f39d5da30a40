"""The kernel layer: the kernel-feature ledger, its lag samples and the feature x regime matrix."""
