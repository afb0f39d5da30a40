"""The model layer: day 0 and evidence of model families (serving engines, independent
benchmarks) turned into lag samples by the lag engine, and the model x regime matrix."""
