"""The collectives layer: NCCL minor series and the regimes' libraries that track them."""
