"""Evaluation harnesses (data paths are always arguments; nothing here needs ../shared to import)."""
