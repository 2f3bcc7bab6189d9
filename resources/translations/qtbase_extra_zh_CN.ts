<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<!-- Qt's own dialog words that the qtbase_zh_CN.qm shipped with PySide6 leaves in English (Qt 6 added the
     mnemonics "&Look in:" and "Files of &type:" to QFileDialog; the shipped file still translates the old
     "Look in:"). Loaded after qtbase_zh_CN (app/services/i18n.py); compiled with
     pyside6-lrelease qtbase_extra_zh_CN.ts -qm qtbase_extra_zh_CN.qm (tests/gui/test_qt_words.py checks both). -->
<TS version="2.1" language="zh_CN" sourcelanguage="en">
  <context>
    <name>QFileDialog</name>
    <message>
      <source>&amp;Look in:</source>
      <translation>查找范围(&amp;L)：</translation>
    </message>
    <message>
      <source>Files of &amp;type:</source>
      <translation>文件类型(&amp;T)：</translation>
    </message>
  </context>
</TS>
