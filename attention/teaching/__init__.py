"""What a person reads about a trace: explain one cell, the lessons, the exported script, FlashAttention's tiles."""
