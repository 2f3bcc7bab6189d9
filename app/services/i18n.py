"""English / Chinese at runtime with Qt's own tools (QTranslator + .qm from pyside6-lrelease).

Installing or removing a translator makes Qt send LanguageChange to every widget; each widget
retranslates itself in changeEvent.  Qt's own strings (dialog buttons, the file dialog) come from the
qtbase_zh_CN PySide6 ships, and the few it leaves in English ("&Look in:") from our qtbase_extra_zh_CN.
The words the Qt-free code writes (step titles, pane words, lessons) come from the catalogue
(attention.words), whose current language `set_language` switches along with Qt's.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from attention import words

TRANSLATIONS = Path(__file__).resolve().parents[2] / "resources" / "translations"
LANGUAGES = ("en", "zh")

_installed: list[QTranslator] = []
_current = "en"
#: the locale Qt had before the window first spoke Chinese (given back when it speaks English again)
_system_locale: Optional[QLocale] = None


def system_language() -> str:
    """zh for any Chinese system locale (zh_CN, zh_TW, ...), else en."""
    names = [QLocale.system().name(), *QLocale.system().uiLanguages()]
    return "zh" if any(n.lower().startswith("zh") for n in names[:1]) else "en"


def current_language() -> str:
    return _current


def set_language(lang: str, app: Optional[QCoreApplication] = None) -> str:
    """Install the translators for `lang` ('en' or 'zh'); returns the language now in effect."""
    global _current
    app = app or QCoreApplication.instance()
    lang = lang if lang in LANGUAGES else "en"
    words.set_language(lang)  # the catalogue of the Qt-free code follows the window
    if app is None or (lang == _current and (_installed or lang == "en")):
        _current = lang
        return _current
    _current = lang  # before the translators change: LanguageChange handlers read it
    _set_locale(lang)
    for t in _installed:
        app.removeTranslator(t)
    _installed.clear()
    if lang == "zh":
        # the last one installed is asked first: our fixes of Qt's words before Qt's own file
        for name, folder in (("app_zh_CN", TRANSLATIONS),
                             ("qtbase_zh_CN", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)),
                             ("qtbase_extra_zh_CN", TRANSLATIONS)):
            t = QTranslator(app)
            if t.load(name, str(folder)):
                app.installTranslator(t)
                _installed.append(t)
    _current = lang
    return _current


def _set_locale(lang: str) -> None:
    """Qt's default locale follows the window: a file dialog opened in the Chinese window lists "JSON 文档" and
    "文件夹" (the file kinds come from the locale, not from a translator).  Spin boxes show no group separators
    (Qt's default), and every number the app writes goes through attention.datamodel.numbers, so the digits stay as they
    are."""
    global _system_locale
    if _system_locale is None:
        _system_locale = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.Chinese, QLocale.Country.China) if lang == "zh" else _system_locale)
