"""Names every stage shares, each defined once: the frameworks as texts spell them, the
regimes tracker knows, the reference regime (day 0 is its own) and the GitHub API's origin.
sources.yaml may configure regimes and origins per source; these are the defaults and the
spellings, not a second configuration."""

from __future__ import annotations

from typing import NamedTuple

# Framework names as collected texts spell them -> the framework (or package) they name:
# "torch==2.9" names PyTorch; jaxlib is its own package in what collectors and the tagger read.
FRAMEWORKS = {
    "pytorch": "pytorch",
    "torch": "pytorch",
    "jax": "jax",
    "jaxlib": "jaxlib",
    "vllm": "vllm",
    "tensorflow": "tensorflow",
    "triton": "triton",
}
# The same names -> the project ids coverage rules use: jaxlib's versions are JAX's series.
FRAMEWORK_PROJECTS = FRAMEWORKS | {"jaxlib": "jax"}

# The regimes a layer gets a column of (the reference first), and the reference regime: the
# one whose day 0 every other regime's lag is counted from (sources.yaml `reference: true`
# names it; this is the default when none does).
REFERENCE_REGIME = "cuda"
REGIMES = (REFERENCE_REGIME, "rocm", "xla", "neuron")

# The layers of the stack, framework first (the lead), each with one pooled row per regime in
# the lag trends (the answer per layer, tracker.measure.headline.answer.layer_answers).
POOLED = "all projects"  # the framework layer's pooled group: the headline answer's


class Layer(NamedTuple):
    id: str  # the artifact kind of its rows (LagSample.artifact); `tracker lag --artifact`
    group: str  # the artifact group of its pooled rows (lag_trend, v_layer_answer)
    name: str  # as every output shows it


LAYERS = (
    Layer("framework", POOLED, "Frameworks"),
    Layer("kernel", "all kernel features", "Kernels"),
    Layer("model", "all model families", "Models"),
    Layer("collective", "all collectives", "Collectives (NCCL)"),
)

GITHUB_API = "https://api.github.com"  # a GitHub source's default `api_url`

# A CI job's outcome as tracker.collect.ci judges it and measure counts it (measure.ci).
PASSED, FAILED = "passed", "failed"
