"""Click commands of the tagger, mounted on the main ``tracker`` group by ``tracker/cli/main.py``.

``tag``           tag texts from JSONL (no store needed) or the store's events; analyst override.
``tagger train``  retrain the shipped model (deterministic).
``tagger evaluate FILE.jsonl``  scores against gold ``label`` / ``regime``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from tracker.cli.common import opened
from tracker.tagger.features import ALL_REGIMES, CLASSES


def _read_jsonl(stream) -> list[dict]:
    rows = []
    for n, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise click.ClickException(f"line {n}: not JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise click.ClickException(f"line {n}: expected a JSON object")
        rows.append(row)
    return rows


def tag_rows(tagger, rows: list[dict]) -> list[dict]:
    """Each row plus ``tag``, ``tag_score``, ``regime``, ``mentions`` (other keys untouched)."""
    out = []
    for row, res in zip(rows, tagger.tag_many(rows), strict=True):
        out.append(
            {
                **row,
                "tag": res.tag,
                "tag_score": res.score,
                "regime": res.regime,
                "mentions": res.mentions,
            }
        )
    return out


@click.command("tag", short_help="Tag events: class, regime, mentions.")
@click.option(
    "--input",
    "input_path",
    type=click.Path(allow_dash=True),
    help="JSONL of texts to tag ('-' = stdin); without it, tag the store's events.",
)
@click.option(
    "--output",
    "output_path",
    type=click.Path(allow_dash=True),
    default="-",
    show_default=True,
    help="Where tagged JSONL goes with --input ('-' = stdout).",
)
@click.option(
    "--retag", is_flag=True, help="Store mode: re-tag every event, not only untagged ones."
)
@click.option(
    "--set",
    "override",
    nargs=2,
    metavar="EVENT_ID CLASS",
    help="Analyst override of one event's class (kept across re-tagging).",
)
@click.option(
    "--regime", type=click.Choice(ALL_REGIMES), help="With --set: the event's regime too."
)
@click.pass_context
def tag(ctx, input_path, output_path, retag, override, regime):
    """Tag texts with class (friction|optimization|neutral), regime and version mentions.

    \b
    Examples:
      tracker tag --input issues.jsonl --output tagged.jsonl
      echo '{"title": "Crash on MI300X", "body": "segfault", "id": 7}' | tracker tag --input -
      tracker tag                 # tag untagged events in the store
      tracker tag --retag         # re-tag all events after a model change
      tracker tag --set 3f2a9c friction --regime rocm

    Input lines need "text", or "title" and "body" (joined by a blank line); optional "labels"
    (list of GitHub labels) and "section" (release-note heading) are used as signals;
    optional "heading", "topic" and "intro" (the heading, lead-in and list introduction above
    a release-note item) give model mentions their status only. Output lines keep every input
    key and add tag, tag_score, regime and mentions. Texts longer than 2,000 characters are
    judged on their first 2,000 (see tracker.tagger.features).
    """
    if override:
        if input_path:
            raise click.UsageError("--set and --input do not go together")
        event_id, cls = override
        if cls not in CLASSES:
            raise click.BadParameter(
                f"class must be one of {', '.join(CLASSES)}", param_hint="--set"
            )
        store = _open_store(ctx)
        store.set_override(event_id, cls, regime)
        click.echo(f"override set: {event_id} -> {cls}" + (f" / {regime}" if regime else ""))
        return
    if regime:
        raise click.UsageError("--regime goes with --set")
    from tracker.tagger import load_tagger

    tagger = load_tagger()
    if input_path:
        with click.open_file(input_path, "r", encoding="utf-8") as fin:
            rows = _read_jsonl(fin)
        tagged = tag_rows(tagger, rows)
        with click.open_file(output_path, "w", encoding="utf-8") as fout:
            for row in tagged:
                fout.write(json.dumps(row, ensure_ascii=False) + "\n")
        if output_path != "-":
            click.echo(f"tagged {len(tagged)} texts -> {output_path}", err=True)
        return
    from tracker.tagger.batch import tag_store

    click.echo(tag_store(_open_store(ctx), retag=retag, tagger=tagger))


def _open_store(ctx):
    obj = ctx.find_root().obj or {}
    if "db_url" not in obj:
        raise click.UsageError(
            "no database configured (run through `tracker`, or set TRACKER_DATABASE_URL)"
        )
    store = opened(ctx, obj["db_url"])
    store.ensure_current()
    return store


@click.group("tagger", short_help="Train and evaluate the NLP tagger.")
def tagger():
    """Train and evaluate the NLP tagger.

    \b
    Examples:
      tracker tagger train path/to/labelled-texts/
      tracker tagger evaluate labelled.jsonl
      tracker tagger evaluate-models model_labels.tsv --corpus corpus/
    """


@tagger.command("train", short_help="Retrain the model from labelled texts.")
@click.argument(
    "training_dir",
    required=False,
    envvar="TRACKER_TRAINING",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
)
@click.option(
    "--corpus",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    envvar="TRACKER_CORPUS",
    default=None,
    help="Folder of vendor release notes whose items are labelled by their headings "
    "(weak labels; none without it). Also TRACKER_CORPUS.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Write the model here instead of the shipped tracker/tagger/model.",
)
@click.option(
    "--seed", type=int, default=None, help="Random seed (default: the fixed training seed)."
)
def train_cmd(training_dir, corpus, out_dir, seed):
    """Retrain the model from the labelled texts in TRAINING_DIR (fixed seed: same data,
    same model).

    \b
    Examples:
      tracker tagger train labelled/
      tracker tagger train labelled/ --corpus release-notes/ --out /tmp/tagger-model --seed 1234

    \b
    TRAINING_DIR (or TRACKER_TRAINING): every *.jsonl file in it, one JSON object per line:
      text     the text: an issue title with the start of its body, or one release-note item
      label    friction | optimization | neutral
      regime   cuda | rocm | xla | neuron | none   (optional, default none)
      source   where the text is from, e.g. "owner/repo#123"   (optional; decides the dev split)
      section  the release-note heading above the text   (optional)
    e.g. {"text": "Kernel panic on MI300X", "label": "friction", "regime": "rocm", "source": "a#1"}

    The repository's own examples (tracker/tagger/data/*.jsonl, same format) are always added.
    --corpus reads rocm/ROCm@*/RELEASE.md, jax/CHANGELOG.md and
    aws-neuron-sdk/release-notes/**/*.rst under it. Writes tracker/tagger/model (or --out) and
    prints dev-set scores (20 % held out by a hash of each text's source). Labels follow
    docs/tagging.md.
    """
    from tracker.tagger.dataset import load_field
    from tracker.tagger.train import MODEL_DIR, SEED, run

    if training_dir is None:
        raise click.UsageError(
            "give the folder of labelled JSONL texts: tracker tagger train TRAINING_DIR "
            "(or set TRACKER_TRAINING); see --help for the format"
        )
    try:
        found = load_field(training_dir)
    except ValueError as exc:  # a line that is not JSON or lacks text / label
        raise click.ClickException(str(exc)) from None
    if not found:
        raise click.UsageError(f"no labelled texts in {training_dir} (expected *.jsonl files)")
    run(
        out_dir=Path(out_dir) if out_dir else MODEL_DIR,
        seed=SEED if seed is None else seed,
        log=click.echo,
        training=training_dir,
        corpus=corpus,
    )


@tagger.command("evaluate", short_help="Score the tagger on labelled JSONL.")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
def evaluate_cmd(file):
    """Score the tagger on FILE.jsonl with gold "label" (and optional "regime") per line.

    \b
    Example:
      tracker tagger evaluate labelled/dev.jsonl

    Prints per-class precision, recall, F1, macro-F1, accuracy and the confusion matrix, then
    the same for regimes (regime accuracy and macro-F1).
    """
    from tracker.tagger import load_tagger
    from tracker.tagger.evaluate import evaluate_rows, format_report

    with click.open_file(file, "r", encoding="utf-8") as fin:
        rows = _read_jsonl(fin)
    bad = [i for i, r in enumerate(rows, 1) if r.get("label") not in CLASSES]
    if bad:
        raise click.ClickException(
            f"lines without a valid label ({', '.join(CLASSES)}): {bad[:10]}"
        )
    cls, reg, _ = evaluate_rows(load_tagger(), rows)
    click.echo(format_report(cls, reg))


@tagger.command("evaluate-models", short_help="Score model-family mentions on labelled lines.")
@click.argument("labels", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--corpus",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="TRACKER_CORPUS",
    required=True,
    help="Folder the labels' file paths are relative to (also TRACKER_CORPUS).",
)
@click.option("--errors", is_flag=True, help="Also list every false positive and negative.")
def evaluate_models_cmd(labels, corpus, errors):
    """Score model-family mentions on LABELS: labelled lines of documents read in place.

    \b
    Example:
      tracker tagger evaluate-models tests/tagger/data/model_support_labels.tsv --corpus corpus/

    LABELS is tab-separated: file (under --corpus), line, model (family id), status
    (supported | planned | dropped | other | none), note; a note may give the line's context
    ("context: lines N-M", "heading: line N", "through: line K"; see the labels file's header).
    Prints gold, predicted, true and false positives, false negatives, precision and recall per
    status and overall. Lines whose file is absent are skipped and named.
    """
    from tracker.tagger.model_eval import evaluate, format_table, read_labels

    try:
        labelled = read_labels(labels)
    except (ValueError, KeyError) as exc:
        raise click.ClickException(f"{labels}: {exc}") from None
    result = evaluate(labelled, corpus)
    click.echo(f"{result.lines} labelled lines read ({len(labelled)} in {labels})")
    for file in result.missing:
        click.echo(f"absent, skipped: {file}")
    click.echo(format_table(result))
    if errors:
        for kind, file, line, model, status, note in result.errors:
            click.echo(f"{kind} {file}:{line} {model} {status}  [{note}]")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(tag())


COMMANDS = (tag, tagger)
