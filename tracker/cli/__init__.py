"""The `tracker` command line: ``main`` (the group, global options, errors -> exit codes) and one
module per command group: ``run`` (the pipeline), ``data`` (analysts), ``tagger``."""
