"""Report writer (placeholder until the metrics stage lands)."""

from pathlib import Path


def write_report(config, store, out_dir: Path) -> list[str]:
    out_dir.mkdir(parents=True, exist_ok=True)
    return [f"report: {out_dir}/ (metrics stage not built yet)"]
