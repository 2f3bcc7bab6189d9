"""Editing widgets: the Parameters and Inputs panels, the matrix editor and its table model,
and the problem labels shown next to the control that caused them."""
