"""The tensor math: one pure torch function per step (shapes in comments), ProbSparse, the encoder layer.

Imports only the data model and the words; nothing here knows a scenario's kinds or its trace."""
