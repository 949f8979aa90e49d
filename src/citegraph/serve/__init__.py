"""citegraph serve: the HTTP API (and, later, the page) over one long-lived graph."""
