"""The teaching texts, as the window reads them: attention/teaching/lessons.py (Qt-free, referenced by the
step records of attention/registry/step_registry.py), under the name the app has always imported."""
from attention.teaching.lessons import explanation, inputs_of, lesson_ids, parameter_title
from attention.text.lesson import format_number

__all__ = ["explanation", "format_number", "inputs_of", "lesson_ids", "parameter_title"]
