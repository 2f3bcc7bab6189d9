"""Start-up: the QApplication, translators, settings, devices, and the headless `render` entry."""
