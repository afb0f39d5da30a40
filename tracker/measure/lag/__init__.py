"""The lag engine every artifact kind shares: coverage rules' meaning, lag samples with their
covered / open / unknown decision (decision), the rows built from it and the record of what is
left out (rows), observation windows, supersession, install channels and silent channels
(docs/methodology.md, "Day-0 coverage lag")."""
