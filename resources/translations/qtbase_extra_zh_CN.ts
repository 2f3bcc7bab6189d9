<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<!-- Qt's own dialog words that the qtbase_zh_CN.qm shipped with PySide6 leaves in English (Qt 6 added the
     mnemonics "&Look in:" and "Files of &type:" to QFileDialog, and moved the file list's kinds "Folder",
     "%1 File" to QAbstractFileIconProvider; the shipped file still translates the old ones). Loaded after qtbase_zh_CN (app/services/i18n.py); compiled with
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
  <context>
    <name>QAbstractFileIconProvider</name>
    <message>
      <source>Drive</source>
      <translation>驱动器</translation>
    </message>
    <message>
      <source>%1 File</source>
      <translation>%1 文件</translation>
    </message>
    <message>
      <source>File</source>
      <translation>文件</translation>
    </message>
    <message>
      <source>Folder</source>
      <comment>All other platforms</comment>
      <translation>文件夹</translation>
    </message>
    <message>
      <source>Folder</source>
      <comment>Match Windows Explorer</comment>
      <translation>文件夹</translation>
    </message>
    <message>
      <source>Directory</source>
      <comment>All other platforms</comment>
      <translation>目录</translation>
    </message>
    <message>
      <source>Shortcut</source>
      <comment>All other platforms</comment>
      <translation>快捷方式</translation>
    </message>
    <message>
      <source>Shortcut</source>
      <comment>Mac OS X Finder</comment>
      <translation>快捷方式</translation>
    </message>
    <message>
      <source>Alias</source>
      <comment>Mac OS X Finder</comment>
      <translation>替身</translation>
    </message>
    <message>
      <source>Unknown</source>
      <translation>未知</translation>
    </message>
  </context>
</TS>
