<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
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
      <source>Untitled scenario</source>
      <extracomment>width of the hidden Steps list the pictures are drawn in (wide: a pane is never squeezed) heads side by side in one row of a handout picture (more wrap to further rows) every word of the page and the menu entries is QCoreApplication.translate("Handout", ...), written out in each call so that lupdate finds it</extracomment>
      <translation>未命名场景</translation>
    </message>
    <message>
      <source>causal</source>
      <translation>因果</translation>
    </message>
    <message>
      <source>valid lengths {0}</source>
      <translation>有效长度 {0}</translation>
    </message>
    <message>
      <source>scoring: {0}</source>
      <translation>打分：{0}</translation>
    </message>
    <message>
      <source>scale: {0:.6g}</source>
      <translation>缩放：{0:.6g}</translation>
    </message>
    <message>
      <source>mask: {0}</source>
      <translation>掩码：{0}</translation>
    </message>
    <message>
      <source>none</source>
      <translation>无</translation>
    </message>
    <message>
      <source>numbers: {0}</source>
      <translation>数值类型：{0}</translation>
    </message>
    <message>
      <source>pictures show batch item {0} of {1}</source>
      <translation>图中是批次第 {0} 项（共 {1} 项）</translation>
    </message>
    <message>
      <source>Step {0} of {1}</source>
      <translation>第 {0} 步（共 {1} 步）</translation>
    </message>
    <message>
      <source>Made with Attention Explorer: every number is the engine's trace.</source>
      <translation>由注意力机制探索器生成：每个数都来自引擎的计算轨迹。</translation>
    </message>
    <message>
      <source>Export handout...</source>
      <translation>导出讲义...</translation>
    </message>
    <message>
      <source>Write a picture of every step and one HTML page to print or share</source>
      <translation>把每一步的图和一个 HTML 页面写出来，便于打印或分享</translation>
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
      <source>{0} of head {1}: {2} x {3} (hidden x head width).</source>
      <translation>第 {1} 头的 {0}：{2} × {3}（隐藏单元数 × 每头宽度）。</translation>
    </message>
    <message>
      <source>Batch item</source>
      <translation>批次项</translation>
    </message>
    <message>
      <source>Which batch item the editors and the step panes show (0 = the first)</source>
      <translation>编辑器和各步骤面板显示哪一个批次项（0 = 第一个）</translation>
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
    <name>MainWindow</name>
    <message>
      <source>Note</source>
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
      <source>Could not save {0}; nothing was written.</source>
      <translation>无法保存 {0}；没有写入任何内容。</translation>
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
      <translation>隐藏此消息</translation>
    </message>
  </context>
  <context>
    <name>ParameterPanel</name>
    <message>
      <source>Change scale</source>
      <translation>修改缩放系数</translation>
    </message>
    <message>
      <source>Change factor</source>
      <translation>修改采样因子</translation>
    </message>
    <message>
      <source>Change seed</source>
      <translation>修改种子</translation>
    </message>
    <message>
      <source>Change mix</source>
      <translation>修改多头混合</translation>
    </message>
    <message>
      <source>Change causal mask</source>
      <translation>修改因果掩码</translation>
    </message>
    <message>
      <source>Change device</source>
      <translation>修改设备</translation>
    </message>
    <message>
      <source>Change precision</source>
      <translation>修改精度</translation>
    </message>
    <message>
      <source>sizes: the inputs would hold {0:,} numbers, more than the {1:,} this window edits; nothing was changed</source>
      <translation>sizes：输入将包含 {0:,} 个数，超过本窗口可编辑的 {1:,} 个；没有任何改动</translation>
    </message>
    <message>
      <source>Change {0} to {1}</source>
      <translation>将 {0} 改为 {1}</translation>
    </message>
    <message>
      <source>Change heads to {0}</source>
      <translation>将头数改为 {0}</translation>
    </message>
    <message>
      <source>Change {0}</source>
      <translation>修改 {0}</translation>
    </message>
    <message>
      <source>Change hidden size</source>
      <translation>修改隐藏层大小</translation>
    </message>
    <message>
      <source>Change scoring</source>
      <translation>修改评分方式</translation>
    </message>
    <message>
      <source>Change valid lengths</source>
      <translation>修改有效长度</translation>
    </message>
    <message>
      <source>Change fill value</source>
      <translation>修改填充值</translation>
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
      <source>{0} (not available here)</source>
      <translation>{0}（本机不可用）</translation>
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
      <source>Heads H</source>
      <translation>头数 H</translation>
    </message>
    <message>
      <source>Number of attention heads. Head h owns columns h*d_k to (h+1)*d_k-1 of the projected queries and keys.</source>
      <translation>注意力头的个数。第 h 个头拥有投影后查询和键的第 h*d_k 到 (h+1)*d_k-1 列。</translation>
    </message>
    <message>
      <source>d_keys per head</source>
      <translation>每头 d_keys</translation>
    </message>
    <message>
      <source>Query/key width of each head. auto = d_model / H, Time-Series-Library's default.</source>
      <translation>每个头的查询/键宽度。自动 = d_model / H，即 Time-Series-Library 的默认值。</translation>
    </message>
    <message>
      <source>d_values per head</source>
      <translation>每头 d_values</translation>
    </message>
    <message>
      <source>Value width of each head. auto = d_model / H, Time-Series-Library's default.</source>
      <translation>每个头的值宽度。自动 = d_model / H，即 Time-Series-Library 的默认值。</translation>
    </message>
    <message>
      <source>How a query and a key give a score: scaled dot product q.k/sqrt(d_k), plain dot product q.k, additive w_v^T tanh(W_q q + W_k k) (d2l), or Informer's ProbSparse (only the top queries get full attention).</source>
      <translation>查询和键如何得到分数：缩放点积 q·k/sqrt(d_k)、普通点积 q·k、加性 w_v^T tanh(W_q q + W_k k)（d2l），或 Informer 的 ProbSparse（只有排在前面的查询做完整注意力）。</translation>
    </message>
    <message>
      <source>Scale</source>
      <translation>缩放系数</translation>
    </message>
    <message>
      <source>Number the scores are multiplied by. auto = 1/sqrt(d_k) for scaled dot product and ProbSparse, 1 for dot product and additive. Untick auto to type your own.</source>
      <translation>分数要乘的数。自动：缩放点积和 ProbSparse 为 1/sqrt(d_k)，点积和加性为 1。取消勾选“自动”即可输入自己的值。</translation>
    </message>
    <message>
      <source>Hidden size</source>
      <translation>隐藏层大小</translation>
    </message>
    <message>
      <source>Additive attention: width of W_q q + W_k k before tanh.</source>
      <translation>加性注意力：tanh 之前 W_q q + W_k k 的宽度。</translation>
    </message>
    <message>
      <source>Factor c</source>
      <translation>采样因子 c</translation>
    </message>
    <message>
      <source>ProbSparse: samples c*ceil(ln S) keys per query and keeps the top c*ceil(ln L) queries.</source>
      <translation>ProbSparse：每个查询采样 c*ceil(ln S) 个键，并保留前 c*ceil(ln L) 个查询。</translation>
    </message>
    <message>
      <source>Sampling seed</source>
      <translation>采样种子</translation>
    </message>
    <message>
      <source>ProbSparse: seed of the random key sample; the same seed gives the same sample as torch.manual_seed before Informer's forward.</source>
      <translation>ProbSparse：随机采样键的种子；相同的种子与在 Informer 前向计算前调用 torch.manual_seed 得到相同的样本。</translation>
    </message>
    <message>
      <source>Mix heads (TSL)</source>
      <translation>混合多头（TSL）</translation>
    </message>
    <message>
      <source>ProbSparse: reproduce Time-Series-Library's view of (B,H,L,D) as (B,L,H*D) without a transpose, which mixes positions and heads.</source>
      <translation>ProbSparse：复现 Time-Series-Library 不转置就把 (B,H,L,D) 视为 (B,L,H*D) 的做法，这会把位置和头混在一起。</translation>
    </message>
    <message>
      <source>Causal</source>
      <translation>因果掩码</translation>
    </message>
    <message>
      <source>Hide later keys: query l may only attend to keys s &lt;= l.</source>
      <translation>遮住后面的键：查询 l 只能关注 s ≤ l 的键。</translation>
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
      <source>Fill value</source>
      <translation>填充值</translation>
    </message>
    <message>
      <source>What masked scores become before softmax: -1e6 (d2l; a fully masked row becomes uniform) or -inf (a fully masked row becomes NaN).</source>
      <translation>被掩蔽的分数在 softmax 前被替换成的值：-1e6（d2l；整行被掩蔽时变为均匀分布）或 -inf（整行被掩蔽时变为 NaN）。</translation>
    </message>
    <message>
      <source>Device</source>
      <translation>设备</translation>
    </message>
    <message>
      <source>Where the engine computes: CPU, or CUDA when this machine has a usable GPU.</source>
      <translation>在哪里计算：CPU，或本机有可用 GPU 时的 CUDA。</translation>
    </message>
    <message>
      <source>Precision</source>
      <translation>精度</translation>
    </message>
    <message>
      <source>float64 matches hand calculation; float32 is what models usually run in.</source>
      <translation>float64 与手算结果一致；模型通常用 float32 运行。</translation>
    </message>
    <message>
      <source>auto</source>
      <translation>自动</translation>
    </message>
    <message>
      <source>Scaled dot product</source>
      <translation>缩放点积</translation>
    </message>
    <message>
      <source>Dot product</source>
      <translation>点积</translation>
    </message>
    <message>
      <source>Additive (d2l)</source>
      <translation>加性（d2l）</translation>
    </message>
    <message>
      <source>ProbSparse (Informer)</source>
      <translation>ProbSparse（Informer）</translation>
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
      <extracomment>zoom steps (Ctrl + / Ctrl −); ZOOM_DEFAULT is where Ctrl+0 returns input panes are drawn this much smaller than the output the edit drawer's width: this share of the screen, within these bounds (px) the slide's title, formula and explanation shrink by this while the drawer is open</extracomment>
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
      <source>Inputs</source>
      <translation>输入</translation>
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
    <name>problems</name>
    <message>
      <source>n_heads: {0} heads do not divide d_model = {1} (the queries' width), which {2} default to; choose a head count that divides {3} or set {4}</source>
      <translation>n_heads：{0} 个头不能整除 d_model = {1}（查询的宽度），而 {2} 默认等于 d_model / H；请选择能整除 {3} 的头数，或设置 {4}</translation>
    </message>
    <message>
      <source>valid_lens{0}: expected a length between 0 and S = {1}, got {2}</source>
      <translation>valid_lens{0}：有效长度应在 0 到 S = {1} 之间，实际为 {2}</translation>
    </message>
    <message>
      <source>{0}: expected shape {1}, got {2}</source>
      <translation>{0}：形状应为 {1}，实际为 {2}</translation>
    </message>
    <message>
      <source>projections.{0}: absent (identity) needs the {1}' width {2} to equal n_heads * {3} = {4} * {5} = {6}; give a weight or set {7} to {8}</source>
      <translation>projections.{0}：不使用权重（恒等映射）时，{1} 的宽度 {2} 必须等于 n_heads × {3} = {4} × {5} = {6}；请启用权重，或把 {7} 设为 {8}</translation>
    </message>
    <message>
      <source>projections.{0}: absent (identity) needs the {1}' width {2} to be divisible by n_heads = {3}</source>
      <translation>projections.{0}：不使用权重（恒等映射）时，{1} 的宽度 {2} 必须能被 n_heads = {3} 整除</translation>
    </message>
    <message>
      <source>valid_lens: prob_sparse does not support valid lengths (neither Informer nor Time-Series-Library defines them); remove valid_lens or pick another scoring kind</source>
      <translation>valid_lens：ProbSparse 不支持有效长度（Informer 和 Time-Series-Library 都没有定义）；请把有效长度设为“无”，或换一种评分函数</translation>
    </message>
    <message>
      <source>causal: causal prob_sparse needs L == S (the lazy rows are a cumulative sum over positions), got L = {0}, S = {1}</source>
      <translation>causal：带因果掩码的 ProbSparse 要求 L == S（未选中的行是沿位置的累加和），实际 L = {0}，S = {1}</translation>
    </message>
    <message>
      <source>scoring: prob_sparse needs at least 2 queries and 2 keys (ln 1 = 0 samples), got L = {0}, S = {1}</source>
      <translation>scoring：ProbSparse 至少需要 2 个查询和 2 个键（ln 1 = 0，采不到样本），实际 L = {0}，S = {1}</translation>
    </message>
    <message>
      <source>sizes: this trace would need about {0} GiB, more than the {1} GiB allowed; reduce B, L, S or n_heads</source>
      <translation>sizes：这次计算大约需要 {0} GiB 内存，超过允许的 {1} GiB；请减小 B、L、S 或头数</translation>
    </message>
    <message>
      <source>device: CUDA was requested but torch.cuda.is_available() is False on this machine; use 'cpu'</source>
      <translation>device：选择了 CUDA，但本机 torch.cuda.is_available() 为 False；请改用 CPU</translation>
    </message>
    <message>
      <source>attention_weights: {0} query row(s) with every key masked ({1}), so the fill value {2} gives uniform weights 1/S over all keys</source>
      <translation>attention_weights：有 {0} 个查询行的所有键都被掩蔽（{1}），因此填充值 {2} 使这些行在所有键上的权重均为 1/S</translation>
    </message>
    <message>
      <source>attention_weights: {0} query row(s) with every key masked ({1}), so the fill value {2} gives NaN weights and a NaN weighted sum</source>
      <translation>attention_weights：有 {0} 个查询行的所有键都被掩蔽（{1}），因此填充值 {2} 使这些行的权重和加权和都为 NaN</translation>
    </message>
    <message>
      <source>file: cannot read: {0}</source>
      <translation>file：无法读取文件：{0}</translation>
    </message>
    <message>
      <source>file: cannot save: {0}</source>
      <translation>file：无法保存文件：{0}</translation>
    </message>
    <message>
      <source>file: not UTF-8 text (byte 0x{0} at offset {1})</source>
      <translation>file：不是 UTF-8 编码的文本（偏移 {1} 处的字节 0x{0}）</translation>
    </message>
    <message>
      <source>file: not UTF-8 text (byte at offset {0})</source>
      <translation>file：不是 UTF-8 编码的文本（偏移 {0} 处的字节）</translation>
    </message>
    <message>
      <source>file: invalid JSON at line {0}, column {1}: {2}</source>
      <translation>file：JSON 格式错误，位于第 {0} 行第 {1} 列：{2}</translation>
    </message>
    <message>
      <source>file: invalid JSON: nested too deeply</source>
      <translation>file：JSON 格式错误：嵌套层数太深</translation>
    </message>
    <message>
      <source>file: invalid JSON: {0}</source>
      <translation>file：JSON 格式错误：{0}</translation>
    </message>
    <message>
      <source>file: expected a JSON object {{...}} at the top level, got {0}</source>
      <translation>file：文件的最外层应是一个 JSON 对象 {{...}}，实际为{0}</translation>
    </message>
    <message>
      <source>format: missing; expected "{0}" (is this an Attention Explorer scenario file?)</source>
      <translation>format：缺少此字段，应为 "{0}"（这是 Attention Explorer 的场景文件吗？）</translation>
    </message>
    <message>
      <source>format: expected "{0}", got {1}</source>
      <translation>format：应为 "{0}"，实际为{1}</translation>
    </message>
    <message>
      <source>version: missing; expected {0}</source>
      <translation>version：缺少此字段，应为 {0}</translation>
    </message>
    <message>
      <source>version: expected {0}, got {1}</source>
      <translation>version：应为 {0}，实际为{1}</translation>
    </message>
    <message>
      <source>version: this file is version {0}, but this program reads version {1} files; open it with a newer Attention Explorer</source>
      <translation>version：这个文件的格式版本是 {0}，而本程序只能读取版本 {1} 的文件；请用更新的 Attention Explorer 打开</translation>
    </message>
    <message>
      <source>{0}: missing (required)</source>
      <translation>{0}：缺少此字段（必填）</translation>
    </message>
    <message>
      <source>{0}: unknown field; expected one of {1}</source>
      <translation>{0}：未知字段；可用的字段是 {1}</translation>
    </message>
    <message>
      <source>{0}: this key appears more than once in one object; keep one</source>
      <translation>{0}：这个键在同一个对象中出现了不止一次；请只保留一个</translation>
    </message>
    <message>
      <source>{0}: expected an object with fields {1} (or null), got {2}</source>
      <translation>{0}：应为包含字段 {1} 的对象（或 null），实际为{2}</translation>
    </message>
    <message>
      <source>{0}: expected a whole number &gt;= {1} and &lt;= {2}, got {3}</source>
      <translation>{0}：应为 ≥ {1} 且 ≤ {2} 的整数，实际为{3}</translation>
    </message>
    <message>
      <source>{0}: expected a whole number &gt;= {1}, got {2}</source>
      <translation>{0}：应为 ≥ {1} 的整数，实际为{2}</translation>
    </message>
    <message>
      <source>{0}: expected a whole number &gt;= {1} or null (default d_model // n_heads), got {2}</source>
      <translation>{0}：应为 ≥ {1} 的整数或 null（默认为 d_model // n_heads），实际为{2}</translation>
    </message>
    <message>
      <source>{0}: expected true or false, got {1}</source>
      <translation>{0}：应为 true 或 false，实际为{1}</translation>
    </message>
    <message>
      <source>{0}: expected one of {1}, got {2}</source>
      <translation>{0}：应为 {1} 之一，实际为{2}</translation>
    </message>
    <message>
      <source>{0}: expected a finite number or null, got {1}</source>
      <translation>{0}：应为有限的数或 null，实际为{1}</translation>
    </message>
    <message>
      <source>{0}: expected a finite number, got {1}</source>
      <translation>{0}：应为有限的数，实际为{1}</translation>
    </message>
    <message>
      <source>{0}: expected a number, got {1}</source>
      <translation>{0}：应为一个数，实际为{1}</translation>
    </message>
    <message>
      <source>{0}: expected an object {{"en": "...", "zh": "..."}}, got {1}</source>
      <translation>{0}：应为对象 {{"en": "...", "zh": "..."}}，实际为{1}</translation>
    </message>
    <message>
      <source>{0}: expected a string, got {1}</source>
      <translation>{0}：应为字符串，实际为{1}</translation>
    </message>
    <message>
      <source>{0}: expected a list of strings (one label per position) or null, got {1}</source>
      <translation>{0}：应为字符串列表（每个位置一个标签）或 null，实际为{1}</translation>
    </message>
    <message>
      <source>{0}: expected a {1} nested list of numbers {2} or a generator object, got {3}</source>
      <translation>{0}：应为 {1}的嵌套数字列表{2}或生成器对象，实际为{3}</translation>
    </message>
    <message>
      <source>{0}: expected a {1} nested list of numbers {2}, got {3}-D</source>
      <translation>{0}：应为 {1}的嵌套数字列表{2}，实际为 {3} 维</translation>
    </message>
    <message>
      <source>{0}: expected a {1} array {2}, but the generator makes shape {3}</source>
      <translation>{0}：应为 {1}数组{2}，但生成器生成的形状是 {3}</translation>
    </message>
    <message>
      <source>{0}: expected a list of {1} numbers, got {2}</source>
      <translation>{0}：应为含 {1} 个数的列表，实际为{2}</translation>
    </message>
    <message>
      <source>{0}: expected a list of {1} items, got {2}</source>
      <translation>{0}：应为含 {1} 项的列表，实际为{2}</translation>
    </message>
    <message>
      <source>{0}: expected {1} numbers, got {2}</source>
      <translation>{0}：应有 {1} 个数，实际有 {2} 个</translation>
    </message>
    <message>
      <source>{0}: expected {1} items, got {2}</source>
      <translation>{0}：应有 {1} 项，实际有 {2} 项</translation>
    </message>
    <message>
      <source>{0}: ... and {1} more problems in this matrix</source>
      <translation>{0}：……这个矩阵中还有 {1} 处问题</translation>
    </message>
    <message>
      <source>{0}: expected a 3-D array (batch, positions, features), got {1}-D</source>
      <translation>{0}：应为 3 维数组（批次，位置，特征），实际为 {1} 维</translation>
    </message>
    <message>
      <source>{0}: every dimension must be at least 1, got shape {1}</source>
      <translation>{0}：每个维度都至少为 1，实际形状为 {1}</translation>
    </message>
    <message>
      <source>{0}: every number must be finite (found NaN or infinity)</source>
      <translation>{0}：每个数都必须是有限的（发现了 NaN 或无穷大）</translation>
    </message>
    <message>
      <source>{0}: batch size {1} differs from queries' {2}</source>
      <translation>{0}：批大小 {1} 与查询的批大小 {2} 不同</translation>
    </message>
    <message>
      <source>values: {0} positions, expected S = {1} (one value per key)</source>
      <translation>values：有 {0} 个位置，应为 S = {1}（每个键对应一个值）</translation>
    </message>
    <message>
      <source>query_tokens: expected {0} labels (one per query), got {1}</source>
      <translation>query_tokens：应有 {0} 个标签（每个查询一个），实际有 {1} 个</translation>
    </message>
    <message>
      <source>key_tokens: expected {0} labels (one per key), got {1}</source>
      <translation>key_tokens：应有 {0} 个标签（每个键一个），实际有 {1} 个</translation>
    </message>
    <message>
      <source>scoring: unknown kind {0}; expected one of {1}</source>
      <translation>scoring：未知的评分函数 {0}；应为 {1} 之一</translation>
    </message>
    <message>
      <source>{0}: only meaningful for prob_sparse (Time-Series-Library's head/position mixing); set it to false</source>
      <translation>{0}：只对 ProbSparse 有意义（Time-Series-Library 把头和位置混在一起的做法）；请设为 false</translation>
    </message>
    <message>
      <source>device: expected 'cpu' or 'cuda', got {0}</source>
      <translation>device：应为 'cpu' 或 'cuda'，实际为 {0}</translation>
    </message>
    <message>
      <source>dtype: expected 'float32' or 'float64', got {0}</source>
      <translation>dtype：应为 'float32' 或 'float64'，实际为 {0}</translation>
    </message>
    <message>
      <source>mask.valid_lens{0}: expected a length between 0 and S = {1}, got {2}</source>
      <translation>mask.valid_lens{0}：有效长度应在 0 到 S = {1} 之间，实际为 {2}</translation>
    </message>
    <message>
      <source>mask.valid_lens{0}: expected a whole number (a count of keys), got {1}</source>
      <translation>mask.valid_lens{0}：有效长度应为整数（键的个数），实际为 {1}</translation>
    </message>
    <message>
      <source>mask.valid_lens: expected lengths between 0 and S</source>
      <translation>mask.valid_lens：有效长度应在 0 到 S 之间</translation>
    </message>
    <message>
      <source>{0}: expected shape [{1}] (one length per batch item) or [{2}, {3}] (one per query row), got {4}</source>
      <translation>{0}：形状应为 [{1}]（每个批次项一个长度）或 [{2}, {3}]（每个查询行一个），实际为 {4}</translation>
    </message>
    <message>
      <source>{0}: expected whole numbers</source>
      <translation>{0}：有效长度应为整数</translation>
    </message>
    <message>
      <source>mask.valid_lens: prob_sparse does not support valid lengths (neither Informer nor Time-Series-Library defines them); remove valid_lens or pick another scoring kind</source>
      <translation>mask.valid_lens：ProbSparse 不支持有效长度（Informer 和 Time-Series-Library 都没有定义）；请删去 valid_lens，或换一种评分函数</translation>
    </message>
    <message>
      <source>mask.causal: causal prob_sparse needs L == S (the lazy rows are a cumulative sum over positions), got L = {0}, S = {1}</source>
      <translation>mask.causal：带因果掩码的 ProbSparse 要求 L == S（未选中的行是沿位置的累加和），实际 L = {0}，S = {1}</translation>
    </message>
    <message>
      <source>mask.fill_value: write minus infinity as the string "-inf" (a bare -Infinity is not standard JSON)</source>
      <translation>mask.fill_value：负无穷请写成字符串 "-inf"（直接写 -Infinity 不是标准 JSON）</translation>
    </message>
    <message>
      <source>mask.fill_value: expected a finite number or "-inf", got {0}</source>
      <translation>mask.fill_value：应为有限的数或 "-inf"，实际为{0}</translation>
    </message>
    <message>
      <source>{0}: expected a finite number or -inf, got {1}</source>
      <translation>{0}：应为有限的数或 -inf，实际为 {1}</translation>
    </message>
    <message>
      <source>{0}: expected {{"weight": ..., "bias": ... or null}} or null (identity), got {1}</source>
      <translation>{0}：应为 {{"weight": ..., "bias": ... 或 null}}，或 null（恒等映射），实际为{1}</translation>
    </message>
    <message>
      <source>{0}.weight: missing; give the weight (out, in) or set {1} to null (identity)</source>
      <translation>{0}.weight：缺少权重；请给出权重（输出，输入），或把 {1} 设为 null（恒等映射）</translation>
    </message>
    <message>
      <source>additive: missing; the additive scoring needs at least {{"hidden": N}} (W_q, W_k and w_v are generated from seed when omitted)</source>
      <translation>additive：缺少此项；加性注意力至少需要 {{"hidden": N}}（省略的 W_q、W_k 和 w_v 会按种子生成）</translation>
    </message>
    <message>
      <source>additive: the additive kind needs its weights (hidden, W_q, W_k, w_v)</source>
      <translation>additive：加性注意力需要它的权重（hidden、W_q、W_k、w_v）</translation>
    </message>
    <message>
      <source>additive.hidden: missing; expected the hidden size (a whole number &gt;= 1)</source>
      <translation>additive.hidden：缺少此字段，应为隐藏层大小（≥ 1 的整数）</translation>
    </message>
    <message>
      <source>additive.hidden: {0} hidden units would need {1} generated weights; at most {2} are allowed</source>
      <translation>additive.hidden：{0} 个隐藏单元需要生成 {1} 个权重，但最多只允许 {2} 个</translation>
    </message>
    <message>
      <source>{0}: missing; a generator object needs "generate": one of {1}</source>
      <translation>{0}：缺少此字段；生成器对象需要 "generate"，取值为 {1} 之一</translation>
    </message>
    <message>
      <source>{0}: unknown generator kind {1}; expected one of {2}</source>
      <translation>{0}：未知的生成器种类 {1}；应为 {2} 之一</translation>
    </message>
    <message>
      <source>{0}: missing; expected a list of whole numbers &gt;= 1, e.g. [2, 4, 8]</source>
      <translation>{0}：缺少此字段，应为由 ≥ 1 的整数组成的列表，例如 [2, 4, 8]</translation>
    </message>
    <message>
      <source>{0}: expected a list of 1 to {1} whole numbers &gt;= 1, e.g. [2, 4, 8], got {2}</source>
      <translation>{0}：应为由 1 到 {1} 个 ≥ 1 的整数组成的列表，例如 [2, 4, 8]，实际为 {2}</translation>
    </message>
    <message>
      <source>{0}: identity needs at least 2 dimensions (rows, columns), got {1}</source>
      <translation>{0}：单位阵至少需要 2 个维度（行，列），实际为 {1}</translation>
    </message>
    <message>
      <source>{0}: expected a list of whole numbers &gt;= 1 (torch.Tensor.repeat), got {1}</source>
      <translation>{0}：应为由 ≥ 1 的整数组成的列表（同 torch.Tensor.repeat），实际为 {1}</translation>
    </message>
    <message>
      <source>{0}: needs at least as many numbers as shape has dimensions ({1}), got {2}</source>
      <translation>{0}：数的个数不能少于 shape 的维数（{1}），实际只有 {2} 个</translation>
    </message>
    <message>
      <source>{0}: missing; {1} needs a seed (a whole number from 0 to 2^63-1)</source>
      <translation>{0}：缺少此字段；{1} 需要一个种子（0 到 2^63-1 的整数）</translation>
    </message>
    <message>
      <source>{0}: expected a whole number from 0 to 2^63-1, got {1}</source>
      <translation>{0}：应为 0 到 2^63-1 的整数，实际为 {1}</translation>
    </message>
    <message>
      <source>{0}: expected a finite number between -1e300 and 1e300, got {1}</source>
      <translation>{0}：应为 -1e300 到 1e300 之间的有限数，实际为 {1}</translation>
    </message>
    <message>
      <source>{0}: expected a number &gt;= 0, got {1}</source>
      <translation>{0}：应为 ≥ 0 的数，实际为 {1}</translation>
    </message>
    <message>
      <source>{0}: expected high &gt;= low, got low = {1}, high = {2}</source>
      <translation>{0}：应满足 high ≥ low，实际 low = {1}，high = {2}</translation>
    </message>
    <message>
      <source>{0}: this generator would make {1} numbers (shape {2}); at most {3} are allowed (what is left of the {4} a file's generators may make)</source>
      <translation>{0}：这个生成器会生成 {1} 个数（形状 {2}），但最多只允许 {3} 个（这是一个文件中所有生成器合计 {4} 个的剩余额度）</translation>
    </message>
    <message>
      <source>{0}: this generator would make {1} numbers (shape {2}); at most {3} are allowed</source>
      <translation>{0}：这个生成器会生成 {1} 个数（形状 {2}），但最多只允许 {3} 个</translation>
    </message>
    <message>
      <source>{0}: cannot save NaN or infinity; every number must be finite</source>
      <translation>{0}：无法保存 NaN 或无穷大；每个数都必须是有限的</translation>
    </message>
    <message>
      <source>scale: cannot save NaN or infinity</source>
      <translation>scale：无法保存 NaN 或无穷大</translation>
    </message>
    <message>
      <source>{0}: cannot save; the text holds characters that are not valid Unicode</source>
      <translation>{0}：无法保存；文本中含有无效的 Unicode 字符</translation>
    </message>
    <message>
      <source>mask.fill_value: cannot save; expected a finite number or -inf</source>
      <translation>mask.fill_value：无法保存；应为有限的数或 -inf</translation>
    </message>
    <message>
      <source>mask.valid_lens: cannot save; expected whole numbers</source>
      <translation>mask.valid_lens：无法保存；有效长度应为整数</translation>
    </message>
    <message>
      <source>1-D</source>
      <extracomment>Whole groups the engine writes in words (shapes' meanings, array depths, described values).</extracomment>
      <translation>1 维</translation>
    </message>
    <message>
      <source>2-D</source>
      <translation>2 维</translation>
    </message>
    <message>
      <source>3-D</source>
      <translation>3 维</translation>
    </message>
    <message>
      <source>1-D or 2-D</source>
      <translation>1 维或 2 维</translation>
    </message>
    <message>
      <source>(batch, queries L, features)</source>
      <translation>（批次，查询个数 L，特征）</translation>
    </message>
    <message>
      <source>(batch, keys S, features)</source>
      <translation>（批次，键的个数 S，特征）</translation>
    </message>
    <message>
      <source>(out, in), as nn.Linear</source>
      <translation>（输出，输入；同 nn.Linear）</translation>
    </message>
    <message>
      <source>(out,)</source>
      <translation>（输出）</translation>
    </message>
    <message>
      <source>(heads, hidden, query head width)</source>
      <translation>（头，隐藏单元，查询的每头宽度）</translation>
    </message>
    <message>
      <source>(heads, hidden, key head width)</source>
      <translation>（头，隐藏单元，键的每头宽度）</translation>
    </message>
    <message>
      <source>(heads, hidden)</source>
      <translation>（头，隐藏单元）</translation>
    </message>
    <message>
      <source>(batch,) or (batch, queries L)</source>
      <translation>（批次）或（批次，查询个数 L）</translation>
    </message>
    <message>
      <source>a list</source>
      <translation>一个列表</translation>
    </message>
    <message>
      <source>an object</source>
      <translation>一个对象</translation>
    </message>
    <message>
      <source>a very long number</source>
      <translation>一个位数过多的数</translation>
    </message>
    <message>
      <source>a number too large for float64</source>
      <translation>一个超出 float64 范围的数</translation>
    </message>
    <message>
      <source>the string {0}</source>
      <translation>字符串 {0}</translation>
    </message>
    <message>
      <source>batch {0}, query {1}</source>
      <extracomment>the fully masked rows a warning names: "batch 0, query 1; batch 1, query 0; and 3 more"</extracomment>
      <translation>批次 {0} 的查询 {1}</translation>
    </message>
    <message>
      <source>; and {0} more</source>
      <translation>；另有 {0} 行</translation>
    </message>
    <message>
      <source>; </source>
      <translation>；</translation>
    </message>
    <message>
      <source> and </source>
      <translation> 和 </translation>
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
