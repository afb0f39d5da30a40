"""The weekly maturity digest email: the week (``week``), its data (``data``, ``blocks``,
``queries``), charts (``charts``), thresholds and SMTP settings (``settings``), rendering and
sending (``mail``, ``templates/``). A sibling of tracker.report, never importing it."""
