"""The pieces every explanation, lesson and exported script is written with.

An explained cell as a record (explanation.py: its terms, their sources, the words around them),
the lessons' sentences (lesson.py) and the exported script's literals and headings (script.py).
The kinds and the main pipeline write their own steps' texts with these; nothing here knows a
kind, a table or a trace."""
