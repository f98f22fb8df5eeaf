"""The report: one self-contained HTML file a person opens in a browser."""
