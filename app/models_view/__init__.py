"""Real trained models in the window: File ▸ Open model folder…, the Sentence box and the model view.

`install(window)` (app.models_view.tools) wires it in; the Qt-free state lives in
app.viewmodel.model_session, the model itself in attention.models.
"""
