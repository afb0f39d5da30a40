"""The kernel layer of the offline demo: the kernel sources' cassettes replayed through the real
collectors into SQLite and PostgreSQL, then `tracker lag --artifact kernel`, the view
v_kernel_lag and the report's "Kernel layer" section, as a user reads them.

The expected dates are the upstream facts the cassettes carry (read from the projects' git
histories: tags' and commits' committer dates, UTC)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tracker.cli.main import cli

REPO = Path(__file__).resolve().parents[2]
KERNEL_SOURCES = {
    "flash-attention-tags", "xformers-tags", "bitsandbytes-tags", "flashinfer-tags",
    "bitsandbytes-commits", "flashmla-commits", "deepgemm-commits", "aiter-commits",
    "jax-releases", "tpu-inference-tags",
}  # fmt: skip
# (feature, regime) -> (day 0, available, lag): the upstream histories' dates
EXPECTED = {
    ("flash_attention_2", "rocm"): ("2023-07-17", "2024-07-23", 372),
    ("flash_attention_paged_kv", "rocm"): ("2024-01-23", "2024-11-12", 294),
    ("flash_attention_paged_kv", "xla"): ("2024-01-23", "2024-04-03", 71),
    ("xformers_memory_efficient_attention", "rocm"): ("2022-05-25", "2024-09-12", 841),
    ("bitsandbytes_4bit", "rocm"): ("2023-05-24", "2025-08-11", 810),
    ("mla_decode", "rocm"): ("2025-02-24", "2025-02-28", 4),
    ("mla_decode", "xla"): ("2025-02-24", "2025-12-06", 285),
    ("fp8_blockscale_gemm", "rocm"): ("2025-02-25", "2025-02-27", 2),
    ("sparse_mla", "rocm"): ("2025-09-24", "2025-11-03", 40),
    ("nvfp4_gemm", "xla"): ("2025-06-06", "2026-06-01", 360),
}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def demo(request, tmp_path_factory):
    if request.param == "postgresql":
        from tests.conftest import PG_SKIP, PG_URL, create_pg_database, drop_pg_database

        if not PG_URL:
            pytest.skip(PG_SKIP)
        url = create_pg_database()
        request.addfinalizer(lambda: drop_pg_database(url))
    folder = tmp_path_factory.mktemp("kernels")
    if request.param == "sqlite":
        url = f"sqlite:///{folder / 'tracker.db'}"
    config = yaml.safe_load((REPO / "sources.yaml").read_text(encoding="utf-8"))
    config["sources"] = [s for s in config["sources"] if s["id"] in KERNEL_SOURCES]
    config["coverage"] = [r for r in config["coverage"] if r.get("artifact") == "kernel"]
    (folder / "sources.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    runner = CliRunner()
    env = {"TRACKER_SOURCES": str(folder / "sources.yaml")}

    def run(*args: str) -> tuple[str, str]:
        result = runner.invoke(cli, ["--db", url, *args], env=env, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout, result.stderr

    run("nightly", "--replay", str(REPO / "cassettes"), "--out", str(folder / "r"))
    lag, reasons = run("lag", "--artifact", "kernel")
    view, _ = run("query", "select * from v_kernel_lag", "--format", "json")
    html = (folder / "r" / "index.html").read_text(encoding="utf-8")
    # ISO week 2025-W45 (Nov 3-9): sparse MLA reached ROCm (aiter #1233, 2025-11-03)
    run("digest", "--week", "2025-W45", "--dry-run", str(folder / "w45.eml"))
    digest = (folder / "w45.eml").read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(lag))), reasons, json.loads(view), html, digest


def test_lag_lists_every_feature_with_a_cuda_day0_and_a_cell_per_regime(demo):
    rows, reasons, _, _, _ = demo
    features = {r["series"] for r in rows}
    assert len(features) >= 10
    for feature in features:
        mine = {r["regime"]: r for r in rows if r["series"] == feature}
        assert set(mine) == {"cuda", "rocm", "xla", "neuron"}, feature
        assert mine["cuda"]["status"] == "covered" and mine["cuda"]["lag_days"] == "0"
    assert all(r["artifact"] == "kernel" for r in rows)
    covered = [r for r in rows if r["status"] == "covered"]
    assert all(r["evidence_url"].startswith("https://github.com/") for r in covered)
    got = {(r["series"], r["regime"]): (r["day0"], r["available"], int(r["lag_days"]))
           for r in covered}  # fmt: skip
    assert {k: got.get(k) for k in EXPECTED} == EXPECTED
    statuses = {(r["series"], r["regime"]): r["status"] for r in rows}
    assert statuses[("flashinfer_attention", "rocm")] == "open"
    assert statuses[("sparse_mla", "xla")] == "open"
    # released before the jax releases the demo collects: unknown, with the reason
    assert statuses[("flash_attention_2", "xla")] == "unknown"
    assert (
        "flash_attention_2 on xla: day 0 2023-07-17 precedes the first jax releases collected "
        "(2024-04-03)" in reasons
    )


def test_view_and_report_carry_the_kernel_layer(demo):
    rows, _, view, html, _ = demo
    dated = [r for r in rows if r["status"] != "unknown"]
    assert len(view) == len(dated)
    assert {v["feature"] for v in view} == {r["series"] for r in rows}
    assert '<section id="kernels">' in html and "Kernel layer" in html
    section = html[html.index('<section id="kernels">') :]
    section = section[: section.index("</section>")]
    assert "via AMD&#39;s aiter library" in section and "label: alpha" in section
    assert "933+ open" in section  # FlashInfer on ROCm, as of the snapshot 2026-08-22
    assert (
        "https://github.com/ROCm/aiter/commit/7c0e15cdb7202cb6bcb60eac9e81e70b4ddaa9c7" in section
    )
    # newest day 0 first
    assert section.index("sparse_mla") < section.index("mla_decode") < section.index("xformers")


def test_digest_says_when_a_kernel_cell_closes(demo):
    digest = demo[4]
    assert (
        "ROCm: kernel sparse_mla (flashmla) closed after 40 d (aiter_commit, 2025-11-03" in digest
    )
    assert "kernel mla_decode" not in digest  # closed in February, not this week
