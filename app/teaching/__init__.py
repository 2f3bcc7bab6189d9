"""Teaching features on top of the step panes: explain a cell, quiz, compare, lessons,
presentation mode and handouts.  Their Qt-free halves live in app/viewmodel/ under the same names."""
