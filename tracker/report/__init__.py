"""The report: lag, CI pass-rate and friction series as CSV / JSON, PNG charts and one HTML page
(``writer``, ``charts``, ``model_charts``, ``templates/``). It renders what tracker.measure
computed; the digest is its sibling and never imports it (nor it the digest)."""
