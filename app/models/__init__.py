"""The window's side of real trained models: importing a layer from a weights file (import_layer)."""
