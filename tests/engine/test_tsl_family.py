"""The Time-Series-Library family (issue 18): every pure step of attention/kinds/{ds_attention,
autocorrelation,two_stage,pyramid}.py, attention/ops/encoder_layer.py and attention/datamodel/time_labels.py
against the library's own module code, copied below.

Reference code: thuml/Time-Series-Library at 4e938a1: layers/SelfAttention_Family.py
(DSAttention, FullAttention, AttentionLayer, TwoStageAttentionLayer), layers/AutoCorrelation.py
(AutoCorrelation), layers/Transformer_EncDec.py (ConvLayer, EncoderLayer, Encoder, DecoderLayer),
layers/Pyraformer_EncDec.py (get_mask, refer_points), models/Nonstationary_Transformer.py
(Projector), utils/masking.py (TriangularCausalMask); copied verbatim (a script checked that every
copied line occurs in those files) except: the imports; "# noqa: E501" on long lines; einops'
rearrange/repeat in TwoStageAttentionLayer written as index loops / torch.cat (einops is not a
dependency; the einops pattern stays in a comment above each replaced line).
Licence of the copied code: MIT License, Copyright (c) 2021 THUML @ Tsinghua University
(https://github.com/thuml/Time-Series-Library/blob/main/LICENSE).

All comparisons in float64 on random weights and inputs, eval mode unless a test says so.
Tolerance 1e-10 where our steps are the same arithmetic in the same order or a reordering of a
few sums; the FFT-based correlation is compared to a direct sum over lags at 1e-9 (FFT rounding
grows with L·log L; float64 measured 4e-15 at L=12, 6e-14 at L=720). Most library comparisons
are in fact bit-exact (measured 0.0 for DSAttention and both Auto-Correlation paths at L=96).
"""
from __future__ import annotations

import math
from math import sqrt

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

# ============================================================================ library code (MIT)


class TriangularCausalMask():
    def __init__(self, B, L, device="cpu"):
        mask_shape = [B, 1, L, L]
        with torch.no_grad():
            self._mask = torch.triu(torch.ones(mask_shape, dtype=torch.bool), diagonal=1).to(device)

    @property
    def mask(self):
        return self._mask


class DSAttention(nn.Module):
    '''De-stationary Attention'''

    def __init__(self, mask_flag=True, factor=5, scale=None, attention_dropout=0.1, output_attention=False):
        super(DSAttention, self).__init__()
        self.scale = scale
        self.mask_flag = mask_flag
        self.output_attention = output_attention
        self.dropout = nn.Dropout(attention_dropout)

    def forward(self, queries, keys, values, attn_mask, tau=None, delta=None):
        B, L, H, E = queries.shape
        _, S, _, D = values.shape
        scale = self.scale or 1. / sqrt(E)

        tau = 1.0 if tau is None else tau.unsqueeze(
            1).unsqueeze(1)  # B x 1 x 1 x 1
        delta = 0.0 if delta is None else delta.unsqueeze(
            1).unsqueeze(1)  # B x 1 x 1 x S

        # De-stationary Attention, rescaling pre-softmax score with learned de-stationary factors
        scores = torch.einsum("blhe,bshe->bhls", queries, keys) * tau + delta

        if self.mask_flag:
            if attn_mask is None:
                attn_mask = TriangularCausalMask(B, L, device=queries.device)

            scores.masked_fill_(attn_mask.mask, -np.inf)

        A = self.dropout(torch.softmax(scale * scores, dim=-1))
        V = torch.einsum("bhls,bshd->blhd", A, values)

        if self.output_attention:
            return V.contiguous(), A
        else:
            return V.contiguous(), None


class FullAttention(nn.Module):
    def __init__(self, mask_flag=True, factor=5, scale=None, attention_dropout=0.1, output_attention=False):
        super(FullAttention, self).__init__()
        self.scale = scale
        self.mask_flag = mask_flag
        self.output_attention = output_attention
        self.dropout = nn.Dropout(attention_dropout)

    def forward(self, queries, keys, values, attn_mask, tau=None, delta=None):
        B, L, H, E = queries.shape
        _, S, _, D = values.shape
        scale = self.scale or 1. / sqrt(E)

        scores = torch.einsum("blhe,bshe->bhls", queries, keys)

        if self.mask_flag:
            if attn_mask is None:
                attn_mask = TriangularCausalMask(B, L, device=queries.device)

            scores.masked_fill_(attn_mask.mask, -np.inf)

        A = self.dropout(torch.softmax(scale * scores, dim=-1))
        V = torch.einsum("bhls,bshd->blhd", A, values)

        if self.output_attention:
            return V.contiguous(), A
        else:
            return V.contiguous(), None



class AttentionLayer(nn.Module):
    def __init__(self, attention, d_model, n_heads, d_keys=None,
                 d_values=None):
        super(AttentionLayer, self).__init__()

        d_keys = d_keys or (d_model // n_heads)
        d_values = d_values or (d_model // n_heads)

        self.inner_attention = attention
        self.query_projection = nn.Linear(d_model, d_keys * n_heads)
        self.key_projection = nn.Linear(d_model, d_keys * n_heads)
        self.value_projection = nn.Linear(d_model, d_values * n_heads)
        self.out_projection = nn.Linear(d_values * n_heads, d_model)
        self.n_heads = n_heads

    def forward(self, queries, keys, values, attn_mask, tau=None, delta=None):
        B, L, _ = queries.shape
        _, S, _ = keys.shape
        H = self.n_heads

        queries = self.query_projection(queries).view(B, L, H, -1)
        keys = self.key_projection(keys).view(B, S, H, -1)
        values = self.value_projection(values).view(B, S, H, -1)

        out, attn = self.inner_attention(
            queries,
            keys,
            values,
            attn_mask,
            tau=tau,
            delta=delta
        )
        out = out.view(B, L, -1)

        return self.out_projection(out), attn



def _rows_by_segment(dim_in, b):
    """einops '(b ts_d) seg_num d_model -> (b seg_num) ts_d d_model', written as an index loop."""
    D = dim_in.shape[0] // b
    return torch.stack([dim_in[bi * D:(bi + 1) * D, s, :] for bi in range(b) for s in range(dim_in.shape[1])])


def _back_to_variables(dim_enc, b):
    """einops '(b seg_num) ts_d d_model -> b ts_d seg_num d_model', written as an index loop."""
    seg = dim_enc.shape[0] // b
    return torch.stack([torch.stack([dim_enc[bi * seg + s] for s in range(seg)], dim=1) for bi in range(b)])



class TwoStageAttentionLayer(nn.Module):
    '''
    The Two Stage Attention (TSA) Layer
    input/output shape: [batch_size, Data_dim(D), Seg_num(L), d_model]
    '''

    def __init__(self, configs,
                 seg_num, factor, d_model, n_heads, d_ff=None, dropout=0.1):
        super(TwoStageAttentionLayer, self).__init__()
        d_ff = d_ff or 4 * d_model
        self.time_attention = AttentionLayer(FullAttention(False, configs.factor, attention_dropout=configs.dropout,
                                                           output_attention=False), d_model, n_heads)
        self.dim_sender = AttentionLayer(FullAttention(False, configs.factor, attention_dropout=configs.dropout,
                                                       output_attention=False), d_model, n_heads)
        self.dim_receiver = AttentionLayer(FullAttention(False, configs.factor, attention_dropout=configs.dropout,
                                                         output_attention=False), d_model, n_heads)
        self.router = nn.Parameter(torch.randn(seg_num, factor, d_model))

        self.dropout = nn.Dropout(dropout)

        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)
        self.norm4 = nn.LayerNorm(d_model)

        self.MLP1 = nn.Sequential(nn.Linear(d_model, d_ff),
                                  nn.GELU(),
                                  nn.Linear(d_ff, d_model))
        self.MLP2 = nn.Sequential(nn.Linear(d_model, d_ff),
                                  nn.GELU(),
                                  nn.Linear(d_ff, d_model))

    def forward(self, x, attn_mask=None, tau=None, delta=None):
        # Cross Time Stage: Directly apply MSA to each dimension
        batch = x.shape[0]
        time_in = x.flatten(0, 1)  # rearrange(x, 'b ts_d seg_num d_model -> (b ts_d) seg_num d_model')
        time_enc, attn = self.time_attention(
            time_in, time_in, time_in, attn_mask=None, tau=None, delta=None
        )
        dim_in = time_in + self.dropout(time_enc)
        dim_in = self.norm1(dim_in)
        dim_in = dim_in + self.dropout(self.MLP1(dim_in))
        dim_in = self.norm2(dim_in)

        # Cross Dimension Stage: use a small set of learnable vectors to aggregate and distribute messages to build the D-to-D connection  # noqa: E501
        # rearrange(dim_in, '(b ts_d) seg_num d_model -> (b seg_num) ts_d d_model', b=batch)
        dim_send = _rows_by_segment(dim_in, batch)
        # repeat(self.router, 'seg_num factor d_model -> (repeat seg_num) factor d_model', repeat=batch)
        batch_router = torch.cat([self.router] * batch)
        dim_buffer, attn = self.dim_sender(batch_router, dim_send, dim_send, attn_mask=None, tau=None, delta=None)
        dim_receive, attn = self.dim_receiver(dim_send, dim_buffer, dim_buffer, attn_mask=None, tau=None, delta=None)
        dim_enc = dim_send + self.dropout(dim_receive)
        dim_enc = self.norm3(dim_enc)
        dim_enc = dim_enc + self.dropout(self.MLP2(dim_enc))
        dim_enc = self.norm4(dim_enc)

        # rearrange(dim_enc, '(b seg_num) ts_d d_model -> b ts_d seg_num d_model', b=batch)
        final_out = _back_to_variables(dim_enc, batch)

        return final_out


class AutoCorrelation(nn.Module):
    """
    AutoCorrelation Mechanism with the following two phases:
    (1) period-based dependencies discovery
    (2) time delay aggregation
    This block can replace the self-attention family mechanism seamlessly.
    """

    def __init__(self, mask_flag=True, factor=1, scale=None, attention_dropout=0.1, output_attention=False):
        super(AutoCorrelation, self).__init__()
        self.factor = factor
        self.scale = scale
        self.mask_flag = mask_flag
        self.output_attention = output_attention
        self.dropout = nn.Dropout(attention_dropout)

    def time_delay_agg_training(self, values, corr):
        """
        SpeedUp version of Autocorrelation (a batch-normalization style design)
        This is for the training phase.
        """
        head = values.shape[1]
        channel = values.shape[2]
        length = values.shape[3]
        # find top k
        top_k = int(self.factor * math.log(length))
        mean_value = torch.mean(torch.mean(corr, dim=1), dim=1)
        index = torch.topk(torch.mean(mean_value, dim=0), top_k, dim=-1)[1]
        weights = torch.stack([mean_value[:, index[i]] for i in range(top_k)], dim=-1)
        # update corr
        tmp_corr = torch.softmax(weights, dim=-1)
        # aggregation
        tmp_values = values
        delays_agg = torch.zeros_like(values).float()
        for i in range(top_k):
            pattern = torch.roll(tmp_values, -int(index[i]), -1)
            delays_agg = delays_agg + pattern * \
                         (tmp_corr[:, i].unsqueeze(1).unsqueeze(1).unsqueeze(1).repeat(1, head, channel, length))
        return delays_agg

    def time_delay_agg_inference(self, values, corr):
        """
        SpeedUp version of Autocorrelation (a batch-normalization style design)
        This is for the inference phase.
        """
        batch = values.shape[0]
        head = values.shape[1]
        channel = values.shape[2]
        length = values.shape[3]
        # index init
        init_index = torch.arange(length).unsqueeze(0).unsqueeze(0).unsqueeze(0).repeat(batch, head, channel, 1).to(values.device)  # noqa: E501
        # find top k
        top_k = int(self.factor * math.log(length))
        mean_value = torch.mean(torch.mean(corr, dim=1), dim=1)
        weights, delay = torch.topk(mean_value, top_k, dim=-1)
        # update corr
        tmp_corr = torch.softmax(weights, dim=-1)
        # aggregation
        tmp_values = values.repeat(1, 1, 1, 2)
        delays_agg = torch.zeros_like(values).float()
        for i in range(top_k):
            tmp_delay = init_index + delay[:, i].unsqueeze(1).unsqueeze(1).unsqueeze(1).repeat(1, head, channel, length)
            pattern = torch.gather(tmp_values, dim=-1, index=tmp_delay)
            delays_agg = delays_agg + pattern * \
                         (tmp_corr[:, i].unsqueeze(1).unsqueeze(1).unsqueeze(1).repeat(1, head, channel, length))
        return delays_agg

    def time_delay_agg_full(self, values, corr):
        """
        Standard version of Autocorrelation
        """
        batch = values.shape[0]
        head = values.shape[1]
        channel = values.shape[2]
        length = values.shape[3]
        # index init
        init_index = torch.arange(length).unsqueeze(0).unsqueeze(0).unsqueeze(0).repeat(batch, head, channel, 1).to(values.device)  # noqa: E501
        # find top k
        top_k = int(self.factor * math.log(length))
        weights, delay = torch.topk(corr, top_k, dim=-1)
        # update corr
        tmp_corr = torch.softmax(weights, dim=-1)
        # aggregation
        tmp_values = values.repeat(1, 1, 1, 2)
        delays_agg = torch.zeros_like(values).float()
        for i in range(top_k):
            tmp_delay = init_index + delay[..., i].unsqueeze(-1)
            pattern = torch.gather(tmp_values, dim=-1, index=tmp_delay)
            delays_agg = delays_agg + pattern * (tmp_corr[..., i].unsqueeze(-1))
        return delays_agg

    def forward(self, queries, keys, values, attn_mask):
        B, L, H, E = queries.shape
        _, S, _, D = values.shape
        if L > S:
            zeros = torch.zeros_like(queries[:, :(L - S), :]).float()
            values = torch.cat([values, zeros], dim=1)
            keys = torch.cat([keys, zeros], dim=1)
        else:
            values = values[:, :L, :, :]
            keys = keys[:, :L, :, :]

        # period-based dependencies
        q_fft = torch.fft.rfft(queries.permute(0, 2, 3, 1).contiguous(), dim=-1)
        k_fft = torch.fft.rfft(keys.permute(0, 2, 3, 1).contiguous(), dim=-1)
        res = q_fft * torch.conj(k_fft)
        corr = torch.fft.irfft(res, dim=-1)

        # time delay agg
        if self.training:
            V = self.time_delay_agg_training(values.permute(0, 2, 3, 1).contiguous(), corr).permute(0, 3, 1, 2)
        else:
            V = self.time_delay_agg_inference(values.permute(0, 2, 3, 1).contiguous(), corr).permute(0, 3, 1, 2)

        if self.output_attention:
            return (V.contiguous(), corr.permute(0, 3, 1, 2))
        else:
            return (V.contiguous(), None)


class ConvLayer(nn.Module):
    def __init__(self, c_in):
        super(ConvLayer, self).__init__()
        self.downConv = nn.Conv1d(in_channels=c_in,
                                  out_channels=c_in,
                                  kernel_size=3,
                                  padding=2,
                                  padding_mode='circular')
        self.norm = nn.BatchNorm1d(c_in)
        self.activation = nn.ELU()
        self.maxPool = nn.MaxPool1d(kernel_size=3, stride=2, padding=1)

    def forward(self, x):
        x = self.downConv(x.permute(0, 2, 1))
        x = self.norm(x)
        x = self.activation(x)
        x = self.maxPool(x)
        x = x.transpose(1, 2)
        return x


class EncoderLayer(nn.Module):
    def __init__(self, attention, d_model, d_ff=None, dropout=0.1, activation="relu"):
        super(EncoderLayer, self).__init__()
        d_ff = d_ff or 4 * d_model
        self.attention = attention
        self.conv1 = nn.Conv1d(in_channels=d_model, out_channels=d_ff, kernel_size=1)
        self.conv2 = nn.Conv1d(in_channels=d_ff, out_channels=d_model, kernel_size=1)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.activation = F.relu if activation == "relu" else F.gelu

    def forward(self, x, attn_mask=None, tau=None, delta=None):
        new_x, attn = self.attention(
            x, x, x,
            attn_mask=attn_mask,
            tau=tau, delta=delta
        )
        x = x + self.dropout(new_x)

        y = x = self.norm1(x)
        y = self.dropout(self.activation(self.conv1(y.transpose(-1, 1))))
        y = self.dropout(self.conv2(y).transpose(-1, 1))

        return self.norm2(x + y), attn


class Encoder(nn.Module):
    def __init__(self, attn_layers, conv_layers=None, norm_layer=None):
        super(Encoder, self).__init__()
        self.attn_layers = nn.ModuleList(attn_layers)
        self.conv_layers = nn.ModuleList(conv_layers) if conv_layers is not None else None
        self.norm = norm_layer

    def forward(self, x, attn_mask=None, tau=None, delta=None):
        # x [B, L, D]
        attns = []
        if self.conv_layers is not None:
            for i, (attn_layer, conv_layer) in enumerate(zip(self.attn_layers, self.conv_layers)):
                delta = delta if i == 0 else None
                x, attn = attn_layer(x, attn_mask=attn_mask, tau=tau, delta=delta)
                x = conv_layer(x)
                attns.append(attn)
            x, attn = self.attn_layers[-1](x, tau=tau, delta=None)
            attns.append(attn)
        else:
            for attn_layer in self.attn_layers:
                x, attn = attn_layer(x, attn_mask=attn_mask, tau=tau, delta=delta)
                attns.append(attn)

        if self.norm is not None:
            x = self.norm(x)

        return x, attns


class DecoderLayer(nn.Module):
    def __init__(self, self_attention, cross_attention, d_model, d_ff=None,
                 dropout=0.1, activation="relu"):
        super(DecoderLayer, self).__init__()
        d_ff = d_ff or 4 * d_model
        self.self_attention = self_attention
        self.cross_attention = cross_attention
        self.conv1 = nn.Conv1d(in_channels=d_model, out_channels=d_ff, kernel_size=1)
        self.conv2 = nn.Conv1d(in_channels=d_ff, out_channels=d_model, kernel_size=1)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.activation = F.relu if activation == "relu" else F.gelu

    def forward(self, x, cross, x_mask=None, cross_mask=None, tau=None, delta=None):
        x = x + self.dropout(self.self_attention(
            x, x, x,
            attn_mask=x_mask,
            tau=tau, delta=None
        )[0])
        x = self.norm1(x)

        x = x + self.dropout(self.cross_attention(
            x, cross, cross,
            attn_mask=cross_mask,
            tau=tau, delta=delta
        )[0])

        y = x = self.norm2(x)
        y = self.dropout(self.activation(self.conv1(y.transpose(-1, 1))))
        y = self.dropout(self.conv2(y).transpose(-1, 1))

        return self.norm3(x + y)


def get_mask(input_size, window_size, inner_size):
    """Get the attention mask of PAM-Naive"""
    # Get the size of all layers
    all_size = []
    all_size.append(input_size)
    for i in range(len(window_size)):
        layer_size = math.floor(all_size[i] / window_size[i])
        all_size.append(layer_size)

    seq_length = sum(all_size)
    mask = torch.zeros(seq_length, seq_length)

    # get intra-scale mask
    inner_window = inner_size // 2
    for layer_idx in range(len(all_size)):
        start = sum(all_size[:layer_idx])
        for i in range(start, start + all_size[layer_idx]):
            left_side = max(i - inner_window, start)
            right_side = min(i + inner_window + 1, start + all_size[layer_idx])
            mask[i, left_side:right_side] = 1

    # get inter-scale mask
    for layer_idx in range(1, len(all_size)):
        start = sum(all_size[:layer_idx])
        for i in range(start, start + all_size[layer_idx]):
            left_side = (start - all_size[layer_idx - 1]) + \
                (i - start) * window_size[layer_idx - 1]
            if i == (start + all_size[layer_idx] - 1):
                right_side = start
            else:
                right_side = (
                    start - all_size[layer_idx - 1]) + (i - start + 1) * window_size[layer_idx - 1]
            mask[i, left_side:right_side] = 1
            mask[left_side:right_side, i] = 1

    mask = (1 - mask).bool()

    return mask, all_size


def refer_points(all_sizes, window_size):
    """Gather features from PAM's pyramid sequences"""
    input_size = all_sizes[0]
    indexes = torch.zeros(input_size, len(all_sizes))

    for i in range(input_size):
        indexes[i][0] = i
        former_index = i
        for j in range(1, len(all_sizes)):
            start = sum(all_sizes[:j])
            inner_layer_idx = former_index - (start - all_sizes[j - 1])
            former_index = start + \
                min(inner_layer_idx // window_size[j - 1], all_sizes[j] - 1)
            indexes[i][j] = former_index

    indexes = indexes.unsqueeze(0).unsqueeze(3)

    return indexes.long()


class Projector(nn.Module):
    '''
    MLP to learn the De-stationary factors
    Paper link: https://openreview.net/pdf?id=ucNDIDRNjjv
    '''

    def __init__(self, enc_in, seq_len, hidden_dims, hidden_layers, output_dim, kernel_size=3):
        super(Projector, self).__init__()

        padding = 1 if torch.__version__ >= '1.5.0' else 2
        self.series_conv = nn.Conv1d(in_channels=seq_len, out_channels=1, kernel_size=kernel_size, padding=padding,
                                     padding_mode='circular', bias=False)

        layers = [nn.Linear(2 * enc_in, hidden_dims[0]), nn.ReLU()]
        for i in range(hidden_layers - 1):
            layers += [nn.Linear(hidden_dims[i], hidden_dims[i + 1]), nn.ReLU()]

        layers += [nn.Linear(hidden_dims[-1], output_dim, bias=False)]
        self.backbone = nn.Sequential(*layers)

    def forward(self, x, stats):
        # x:     B x S x E
        # stats: B x 1 x E
        # y:     B x O
        batch_size = x.shape[0]
        x = self.series_conv(x)  # B x 1 x E
        x = torch.cat([x, stats], dim=1)  # B x 2 x E
        x = x.view(batch_size, -1)  # B x 2E
        y = self.backbone(x)  # B x O

        return y


# ============================================================================ our code under test

from attention import words  # noqa: E402
from attention.datamodel import time_labels  # noqa: E402
from attention.kinds import autocorrelation as ac  # noqa: E402
from attention.kinds import ds_attention as ds  # noqa: E402
from attention.kinds import pyramid as pyr  # noqa: E402
from attention.kinds import two_stage as tsa  # noqa: E402
from attention.ops import encoder_layer as enc  # noqa: E402

TOL = 1e-10


@pytest.fixture(autouse=True)
def _float64_and_words(monkeypatch):
    """float64 everywhere; the "time_series" words topic counted in until the lead registers it."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    if "time_series" not in words.TOPICS:
        monkeypatch.setattr(words, "TOPICS", words.TOPICS + ("time_series",))
    words.table.cache_clear()
    yield
    torch.set_default_dtype(before)
    words.table.cache_clear()


def _close(a, b, tol=TOL):
    assert a.shape == b.shape, (a.shape, b.shape)
    err = (a - b).abs().max().item() if a.numel() else 0.0
    assert err <= tol, err


def _lin(m: nn.Linear):
    return (m.weight.detach(), m.bias.detach() if m.bias is not None else None)


# ---------------------------------------------------------------- DSAttention


@pytest.mark.parametrize("mask_flag", [False, True])
@pytest.mark.parametrize("scale", [None, 0.3])
def test_ds_attention_matches_library(mask_flag, scale):
    g = torch.Generator().manual_seed(1)
    B, L, H, E, D = 3, 6, 2, 4, 5
    S = L if mask_flag else 8
    q, k, v = (torch.randn(B, n, H, w, generator=g) for n, w in ((L, E), (S, E), (S, D)))
    tau = torch.rand(B, 1, generator=g) * 3 + 0.1
    delta = torch.randn(B, S, generator=g) * 2
    lib = DSAttention(mask_flag, scale=scale, attention_dropout=0.5, output_attention=True).eval()
    V, A = lib(q, k, v, None, tau=tau, delta=delta)
    ours = ds.ds_attention(q, k, v, tau, delta, mask_flag=mask_flag, scale=scale)
    _close(ours.weights, A)
    _close(ours.output, V)


def test_ds_attention_without_tau_and_delta_is_full_attention():
    g = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn(2, 5, 3, 4, generator=g) for _ in range(3))
    V, A = FullAttention(True, output_attention=True).eval()(q, k, v, None)
    ours = ds.ds_attention(q, k, v, None, None, mask_flag=True)
    _close(ours.weights, A)
    _close(ours.output, V)


def test_quirk_the_scale_also_multiplies_delta():
    """The library softmaxes scale·(tau·q·k + delta): delta is scaled too (not added after scaling)."""
    g = torch.Generator().manual_seed(3)
    B, L, S, H, E = 2, 4, 5, 2, 9
    q = torch.randn(B, L, H, E, generator=g)
    k, v = torch.randn(B, S, H, E, generator=g), torch.randn(B, S, H, E, generator=g)
    tau, delta = torch.tensor([[2.0], [0.5]]), torch.randn(B, S, generator=g) * 3
    _, A = DSAttention(False, output_attention=True).eval()(q, k, v, None, tau=tau, delta=delta)
    scale = 1 / 3  # 1 / sqrt(9)
    qk = torch.einsum("blhe,bshe->bhls", q, k)  # written here, not taken from the module
    scaled_both = torch.softmax(scale * tau[:, :, None, None] * qk + scale * delta[:, None, None, :], -1)
    delta_after = torch.softmax(scale * tau[:, :, None, None] * qk + delta[:, None, None, :], -1)
    _close(A, scaled_both)
    assert (A - delta_after).abs().max() > 1e-2
    _close(ds.effective_delta(delta, ds.scale_of(E, None)), delta / 3)


def test_tau_and_delta_take_the_library_shapes():
    tau4, delta4 = ds.shape_factors(torch.ones(3, 1), torch.zeros(3, 7), 3, 7)
    assert tau4.shape == (3, 1, 1, 1) and delta4.shape == (3, 1, 1, 7)
    assert ds.shape_factors(None, None, 3, 7) == (1.0, 0.0)
    with pytest.raises(ValueError, match="tau"):
        ds.shape_factors(torch.ones(3), None, 3, 7)
    with pytest.raises(ValueError, match="delta"):
        ds.shape_factors(None, torch.ones(3, 6), 3, 7)


def test_scale_zero_means_default_as_in_the_library():
    assert ds.scale_of(16, 0) == ds.scale_of(16, None) == 0.25


def test_projector_and_stats_match_the_model():
    torch.manual_seed(4)
    B, S_in, N = 3, 12, 5
    x = torch.randn(B, S_in, N) * 4 + 10
    # models/Nonstationary_Transformer.py forecast(): the statistics, as written there
    mean_enc = x.mean(1, keepdim=True)
    std_enc = torch.sqrt(torch.var(x - mean_enc, dim=1, keepdim=True, unbiased=False) + 1e-5)
    stats = ds.series_stats(x)
    _close(stats.mean, mean_enc)
    _close(stats.std, std_enc)
    for output_dim, st in ((1, std_enc), (S_in, mean_enc)):
        lib = Projector(N, S_in, hidden_dims=[8, 6], hidden_layers=2, output_dim=output_dim).double().eval()
        lins = [m for m in lib.backbone if isinstance(m, nn.Linear)]
        w = ds.ProjectorWeights(lib.series_conv.weight.detach(), [_lin(m) for m in lins])
        _close(ds.projector(x, st, w), lib(x, st).detach())
    log_tau = torch.tensor([[1.0], [90.0]])
    _close(ds.tau_from_log(log_tau), torch.clamp(log_tau, max=80.0).exp())


# ---------------------------------------------------------------- AutoCorrelation


def _direct_correlation(q, k):
    """corr[b, h, e, tau] = sum_t q[b, (t + tau) mod L, h, e] · k[b, t, h, e], a plain loop."""
    B, L, H, E = q.shape
    out = torch.zeros(B, H, E, L)
    for tau in range(L):
        out[..., tau] = (torch.roll(q, -tau, dims=1) * k).sum(dim=1)
    return out


def test_correlation_is_the_circular_cross_correlation_for_even_L():
    g = torch.Generator().manual_seed(5)
    q, k = torch.randn(2, 12, 3, 4, generator=g), torch.randn(2, 12, 3, 4, generator=g)
    _close(ac.correlation(q, k), _direct_correlation(q, k), 1e-9)


def test_quirk_odd_length_correlation_curve_is_one_lag_short():
    """irfft without n: a length-11 series gives a 10-point curve that is not the exact correlation."""
    g = torch.Generator().manual_seed(6)
    q, k, v = (torch.randn(2, 11, 2, 3, generator=g) for _ in range(3))
    corr = ac.correlation(q, k)
    assert corr.shape[-1] == 10 == ac.curve_length(11)
    assert (corr - _direct_correlation(q, k)[..., :10]).abs().max() > 1e-3
    lib = AutoCorrelation(factor=2, output_attention=True).eval()
    V, corr_lib = lib(q, k, v, None)
    _close(corr, corr_lib.permute(0, 2, 3, 1))
    _close(ac.autocorrelation(q, k, v, factor=2).output, V)


@pytest.mark.parametrize("training", [False, True])
@pytest.mark.parametrize("L,S,factor", [(16, 16, 1), (24, 24, 3), (20, 13, 2), (12, 30, 2), (9, 9, 3)])
def test_autocorrelation_matches_library(training, L, S, factor):
    g = torch.Generator().manual_seed(7 + L + S)
    B, H, E = 3, 2, 4
    q = torch.randn(B, L, H, E, generator=g)
    k, v = torch.randn(B, S, H, E, generator=g), torch.randn(B, S, H, E, generator=g)
    lib = AutoCorrelation(factor=factor, output_attention=True)
    lib.train(training)
    V, corr = lib(q, k, v, None)
    ours = ac.autocorrelation(q, k, v, factor=factor, training=training)
    _close(ours.corr, corr.permute(0, 2, 3, 1))
    _close(ours.output, V)
    assert ours.lags.lags.shape == (B, int(factor * math.log(L)))
    if training:
        assert (ours.lags.lags == ours.lags.lags[:1]).all()  # one set of lags for the whole batch


def test_training_path_shares_lags_inference_path_does_not():
    g = torch.Generator().manual_seed(8)
    B, L, H, E = 2, 24, 1, 1
    t = torch.arange(L, dtype=torch.float64)
    # series 0 repeats every 6 steps, series 1 every 8: their own top lags differ
    q = torch.stack([torch.sin(2 * math.pi * t / 6), torch.sin(2 * math.pi * t / 8)])[:, :, None, None]
    v = torch.randn(B, L, H, E, generator=g)
    inf = ac.autocorrelation(q, q, v, factor=1, training=False)
    tr = ac.autocorrelation(q, q, v, factor=1, training=True)
    assert inf.lags.lags[0, 0] % 6 == 0 and inf.lags.lags[1, 0] % 8 == 0
    assert tr.lags.lags[0, 0] == tr.lags.lags[1, 0]


def test_quirk_roll_direction_output_reads_values_lag_steps_later():
    """Keys that run 2 steps ahead of the queries make lag 2 win; output step t then holds
    v[(t + 2) mod L]: the library's torch.roll(v, -2) (a roll to the left), Autoformer#128."""
    L = 6  # int(1 · ln 6) = 1 lag
    t = torch.arange(L, dtype=torch.float64)
    q = torch.tensor([3.0, -1.0, 0.5, 2.0, -2.0, 0.0])[:, None][None, :, :, None].expand(1, L, 1, 1)
    k = torch.roll(q, -2, dims=1)  # k[t] = q[t + 2]
    v = (10 * t)[None, :, None, None]
    ours = ac.autocorrelation(q, k, v, factor=1)
    assert ours.lags.lags.tolist() == [[2]]
    expected = (10 * ((t + 2) % L))[None, :, None, None]  # by hand: 20, 30, 40, 50, 0, 10
    _close(ours.output, expected)
    for training in (False, True):
        lib = AutoCorrelation(factor=1).train(training)
        _close(lib(q, k, v, None)[0], expected)
    term = ac.contributions(ours, 0, 5, 0, 0)[0]
    assert (term.lag, term.roll, term.source, term.value) == (2, -2, 1, 10.0)
    assert ac.describe(term, 5, "en").startswith("lag 2: torch.roll(V, -2) brings step 1 to step 5")
    assert "滞后 2" in ac.describe(term, 5, "zh")


def test_contributions_add_up_to_the_output_cell():
    g = torch.Generator().manual_seed(9)
    q, k, v = (torch.randn(2, 20, 2, 3, generator=g) for _ in range(3))
    parts = ac.autocorrelation(q, k, v, factor=2)
    for b, t, h, d in ((0, 0, 0, 0), (1, 19, 1, 2), (1, 7, 0, 1)):
        terms = ac.contributions(parts, b, t, h, d)
        assert len(terms) == int(2 * math.log(20))
        assert abs(sum(x.product for x in terms) - parts.output[b, t, h, d].item()) <= TOL
        assert abs(sum(x.weight for x in terms) - 1) <= TOL


def test_top_k_is_factor_ln_L_truncated_and_refused_beyond_the_curve():
    assert ac.top_k(1, 96) == 4 and ac.top_k(3, 24) == 9 and ac.top_k(1, 2) == 0
    with pytest.raises(ValueError, match="factor"):
        ac.top_k(10, 5)


def test_more_queries_than_keys_needs_equal_key_and_value_widths_as_in_the_library():
    q, k, v = torch.randn(1, 8, 1, 4), torch.randn(1, 5, 1, 4), torch.randn(1, 5, 1, 3)
    with pytest.raises(RuntimeError):
        AutoCorrelation().eval()(q, k, v, None)
    with pytest.raises(ValueError, match="d_values"):
        ac.autocorrelation(q, k, v)


# ---------------------------------------------------------------- Crossformer two-stage attention


class _Configs:
    factor, dropout = 5, 0.3


def _attention_weights(layer: AttentionLayer) -> tsa.AttentionWeights:
    return tsa.AttentionWeights(_lin(layer.query_projection), _lin(layer.key_projection),
                                _lin(layer.value_projection), _lin(layer.out_projection), layer.n_heads)


def _two_stage_weights(lib: TwoStageAttentionLayer) -> tsa.TwoStageWeights:
    def norm(n):
        return tsa.NormWeights(n.weight.detach(), n.bias.detach())

    def mlp(m):
        return tsa.MLPWeights(_lin(m[0]), _lin(m[2]))

    return tsa.TwoStageWeights(_attention_weights(lib.time_attention), _attention_weights(lib.dim_sender),
                               _attention_weights(lib.dim_receiver), lib.router.detach(),
                               norm(lib.norm1), norm(lib.norm2), norm(lib.norm3), norm(lib.norm4),
                               mlp(lib.MLP1), mlp(lib.MLP2))


def test_two_stage_attention_matches_library_step_by_step():
    torch.manual_seed(10)
    b, D, seg, d, H, factor = 2, 5, 4, 8, 2, 3
    lib = TwoStageAttentionLayer(_Configs(), seg, factor, d, H, d_ff=12, dropout=0.4).double().eval()
    for n in (lib.norm1, lib.norm2, lib.norm3, lib.norm4):  # LayerNorms start at 1 / 0: make them count
        nn.init.normal_(n.weight)
        nn.init.normal_(n.bias)
    seen = {}
    for name in ("time_attention", "dim_sender", "dim_receiver"):
        getattr(lib, name).register_forward_hook(lambda m, i, o, name=name: seen.__setitem__(name, (i, o[0])))
    x = torch.randn(b, D, seg, d)
    out = lib(x).detach()
    ours = tsa.two_stage(x, _two_stage_weights(lib))
    _close(ours.output, out)
    _close(ours.time.output, seen["time_attention"][1].detach())
    _close(ours.router, seen["dim_sender"][0][0].detach())
    _close(ours.dim_send, seen["dim_sender"][0][1].detach())
    _close(ours.sender.output, seen["dim_sender"][1].detach())
    _close(ours.receiver.output, seen["dim_receiver"][1].detach())
    assert ours.sender.weights.shape == (b * seg, H, factor, D)
    assert ours.receiver.weights.shape == (b * seg, H, D, factor)
    assert ours.time.weights.shape == (b * D, H, seg, seg)


def test_two_stage_attention_weights_match_full_attention():
    """The three weights we keep (the layer drops them) equal FullAttention's own on the same inputs."""
    torch.manual_seed(11)
    b, D, seg, d, H = 2, 3, 4, 6, 3
    lib = TwoStageAttentionLayer(_Configs(), seg, 2, d, H).double().eval()
    x = torch.randn(b, D, seg, d)
    ours = tsa.two_stage(x, _two_stage_weights(lib))
    for layer, (xq, xkv), A in ((lib.dim_sender, (ours.router, ours.dim_send), ours.sender.weights),
                                (lib.dim_receiver, (ours.dim_send, ours.sender.output), ours.receiver.weights),
                                (lib.time_attention, (ours.time_in, ours.time_in), ours.time.weights)):
        probe = AttentionLayer(FullAttention(False, output_attention=True), d, H).double().eval()
        probe.load_state_dict(layer.state_dict())
        _close(A, probe(xq, xkv, xkv, None)[1].detach())


def test_router_row_pairs_segment_s_of_every_batch_item_with_router_s():
    router = torch.randn(4, 2, 3)
    rows = tsa.batch_router(router, 3)
    for bi in range(3):
        for s in range(4):
            assert torch.equal(rows[bi * 4 + s], router[s])
    with pytest.raises(ValueError, match="router"):
        lib = TwoStageAttentionLayer(_Configs(), 4, 2, 6, 2).double().eval()
        w = _two_stage_weights(lib)
        tsa.two_stage(torch.randn(1, 3, 5, 6), w)  # 5 segments, router made for 4


# ---------------------------------------------------------------- Pyraformer pyramid mask

PYRAMIDS = [(16, [2, 2], 3), (10, [4], 3), (24, [4, 4], 5), (13, [2, 3, 2], 4), (7, [2, 2, 2], 1), (9, [3, 5], 2)]


@pytest.mark.parametrize("input_size,window,inner", PYRAMIDS)
def test_pyramid_mask_matches_get_mask(input_size, window, inner):
    mask, sizes = pyr.pyramid_mask(input_size, window, inner)
    lib_mask, lib_sizes = get_mask(input_size, window, inner)
    assert sizes == lib_sizes
    assert torch.equal(mask, lib_mask)
    assert torch.equal(pyr.refer_points(sizes, window), refer_points(lib_sizes, window)[0, :, :, 0])


@pytest.mark.parametrize("input_size,window,inner", PYRAMIDS)
def test_why_names_a_link_exactly_for_the_visible_cells(input_size, window, inner):
    mask, sizes = pyr.pyramid_mask(input_size, window, inner)
    N = sum(sizes)
    for i in range(N):
        for s in range(N):
            found = pyr.link(i, s, sizes, window, inner)
            assert (found is None) == bool(mask[i, s]), (i, s)
            if found is not None and found.kind == "parent":  # links are symmetric
                assert pyr.link(s, i, sizes, window, inner).kind == "child"


def test_quirk_last_node_of_a_scale_adopts_the_leftover_steps():
    """10 steps, window 4: two coarse nodes (10 // 4); the last takes steps 4 … 9 (6 children)."""
    mask, sizes = pyr.pyramid_mask(10, [4], 3)
    assert sizes == [10, 2]
    children = [s for s in range(10) if not mask[11, s]]
    assert children == [4, 5, 6, 7, 8, 9]
    assert [s for s in range(10) if not mask[10, s]] == [0, 1, 2, 3]
    assert pyr.link(9, 11, sizes, [4], 3).kind == "parent"


def test_why_speaks_both_languages():
    sizes = pyr.pyramid_sizes(16, [2, 2])
    assert pyr.why(0, 16, sizes, [2, 2], 3, "en") == "scale 2 node 1 is scale 1 node 1's parent (one scale coarser)"
    assert pyr.why(0, 1, sizes, [2, 2], 3, "en").startswith("scale 1 node 2 is scale 1 node 1's neighbour")
    assert pyr.why(0, 5, sizes, [2, 2], 3, "en").startswith("masked")
    assert "父节点" in pyr.why(0, 16, sizes, [2, 2], 3, "zh")
    assert pyr.batched(pyr.pyramid_mask(16, [2, 2], 3)[0], 2).shape == (2, 28, 28)
    with pytest.raises(ValueError, match="window_size"):
        pyr.pyramid_sizes(8, [2, 0])


# ---------------------------------------------------------------- encoder layer and distilling


def _encoder_weights(layer: EncoderLayer, activation: str) -> enc.EncoderLayerWeights:
    return enc.EncoderLayerWeights(layer.conv1.weight.detach(), layer.conv1.bias.detach(),
                                   layer.conv2.weight.detach(), layer.conv2.bias.detach(),
                                   layer.norm1.weight.detach(), layer.norm1.bias.detach(),
                                   layer.norm2.weight.detach(), layer.norm2.bias.detach(), activation)


@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_matches_library(activation):
    torch.manual_seed(12)
    B, L, d, H = 2, 7, 8, 2
    attn = AttentionLayer(FullAttention(False, attention_dropout=0.5), d, H)
    layer = EncoderLayer(attn, d, d_ff=16, dropout=0.5, activation=activation).double().eval()
    for n in (layer.norm1, layer.norm2):
        nn.init.normal_(n.weight)
        nn.init.normal_(n.bias)
    x = torch.randn(B, L, d)
    out, _ = layer(x)
    new_x = attn(x, x, x, None)[0]
    parts = enc.encoder_layer(x, new_x.detach(), _encoder_weights(layer, activation))
    _close(parts.norm2.out, out.detach())
    _close(parts.norm1.out, layer.norm1(x + new_x).detach())
    _close(parts.hidden_pre, layer.conv1(parts.norm1.out.transpose(1, 2)).transpose(1, 2).detach())


def test_layer_norm_terms_are_the_mean_and_biased_variance():
    x = torch.tensor([[1.0, 2.0, 3.0, 6.0]])
    parts = enc.layer_norm(x, torch.tensor([1.0, 2.0, 1.0, 1.0]), torch.tensor([0.0, 0.0, 0.0, 1.0]))
    assert parts.mean.item() == 3.0 and parts.var.item() == 3.5  # (4 + 1 + 0 + 9) / 4
    _close(parts.out, nn.functional.layer_norm(x, (4,), torch.tensor([1.0, 2.0, 1.0, 1.0]),
                                               torch.tensor([0.0, 0.0, 0.0, 1.0])))


def _distil_weights(lib: ConvLayer) -> enc.DistilWeights:
    return enc.DistilWeights(lib.downConv.weight.detach(), lib.downConv.bias.detach(),
                             lib.norm.running_mean, lib.norm.running_var,
                             lib.norm.weight.detach(), lib.norm.bias.detach())


@pytest.mark.parametrize("L", [96, 49, 7, 2])
def test_distilling_conv_layer_matches_library(L):
    torch.manual_seed(13)
    C = 4
    lib = ConvLayer(C).double()
    lib.norm.running_mean.copy_(torch.randn(C))
    lib.norm.running_var.copy_(torch.rand(C) + 0.5)
    nn.init.normal_(lib.norm.weight)
    nn.init.normal_(lib.norm.bias)
    lib.eval()
    seen = {}
    lib.downConv.register_forward_hook(lambda m, i, o: seen.__setitem__("conv", o))
    x = torch.randn(3, L, C)
    out = lib(x).detach()
    parts = enc.distil(x, _distil_weights(lib))
    _close(parts.conv.out, seen["conv"].transpose(1, 2).detach())
    _close(parts.pooled, out)
    _, idx = F.max_pool1d(parts.activated.transpose(1, 2), 3, 2, 1, return_indices=True)
    assert torch.equal(parts.pool_argmax, idx.transpose(1, 2))


def test_quirk_distilling_turns_96_steps_into_49():
    """Kernel 3 with circular padding 2 adds two steps before the pool halves: 96 -> 98 -> 49."""
    assert [enc.distilled_length(L) for L in (96, 49, 25, 8)] == [49, 26, 14, 5]
    lib = ConvLayer(2).double().eval()
    assert lib(torch.randn(1, 96, 2)).shape == (1, 49, 2)


def test_conv_as_matrix_product_reads_the_wrapped_steps():
    x = torch.arange(5.0)[None, :, None]  # one channel, steps 0..4
    w = torch.tensor([[[1.0, 10.0, 100.0]]])
    conv = enc.circular_conv_matmul(x, w, None, pad=2)
    assert conv.padded[0, 0].tolist() == [3.0, 4.0, 0.0, 1.0, 2.0, 3.0, 4.0, 0.0, 1.0]
    assert conv.patches.shape == (1, 7, 3) and conv.patches[0, 0].tolist() == [3.0, 4.0, 0.0]
    assert conv.out[0, 0, 0].item() == 3 + 40 + 0


# ---------------------------------------------------------------- labels for time


def test_patch_labels_follow_patch_embeddings_unfold():
    L, patch_len, stride = 96, 16, 8
    labels = time_labels.patch_labels(L, patch_len, stride, lang="en")
    assert labels[2] == "patch 3 · t 16–31"
    # the library's own patching on a series that holds its step numbers
    x = torch.arange(L, dtype=torch.float64)[None, None, :]
    patches = nn.ReplicationPad1d((0, stride))(x).unfold(dimension=-1, size=patch_len, step=stride)[0, 0]
    assert len(labels) == patches.shape[0] == int((L - patch_len) / stride + 2)
    for span, row in zip(time_labels.patch_spans(L, patch_len, stride), patches):
        real = [min(t, L - 1) for t in range(span.start, span.end + 1)]
        assert row.tolist() == real
    assert labels[-1] == "patch 12 · t 88–103 (96–103 repeat t 95)"
    assert time_labels.patch_labels(L, patch_len, stride, lang="zh")[2] == "第 3 块 · t 16–31"
    assert time_labels.patch_labels(24, 12, 12, padding=0, t0=1) == ["patch 1 · t 1–12", "patch 2 · t 13–24"]
    with pytest.raises(ValueError, match="stride"):
        time_labels.patch_labels(24, 12, 0)


def test_variate_labels_names_then_time_features():
    assert time_labels.variate_labels(2, ["OT", " HUFL "], n_time_features=1, lang="en") == \
        ["OT", "HUFL", "time feature 1"]
    assert time_labels.variate_labels(2, lang="zh") == ["变量 1", "变量 2"]
    with pytest.raises(ValueError, match="names"):
        time_labels.variate_labels(3, ["a", "b"])
    with pytest.raises(ValueError, match=r"names\[1\]"):
        time_labels.variate_labels(2, ["a", ""])


def test_dated_steps_for_tsl_frequencies():
    assert time_labels.date_labels("2016-07-01", "h", 3) == ["2016-07-01 00:00", "2016-07-01 01:00", "2016-07-01 02:00"]
    assert time_labels.date_labels("2016-07-01 23:30", "15min", 3) == \
        ["2016-07-01 23:30", "2016-07-01 23:45", "2016-07-02 00:00"]
    assert time_labels.date_labels("2016-07-01", "t", 2)[1] == "2016-07-01 00:01"
    assert time_labels.date_labels("2024-01-05", "b", 3) == ["2024-01-05", "2024-01-08", "2024-01-09"]  # Fri, Mon, Tue
    assert time_labels.date_labels("2024-01-06", "b", 1) == ["2024-01-08"]  # Saturday rolls to Monday
    assert time_labels.date_labels("2016-01-31", "m", 3) == ["2016-01", "2016-02", "2016-03"]
    assert [d.day for d in time_labels.dated_steps("2016-01-31", "M", 3)] == [31, 29, 31]
    assert time_labels.date_labels("2016-07-01", "w", 2) == ["2016-07-01", "2016-07-08"]
    with pytest.raises(ValueError, match="freq"):
        time_labels.dated_steps("2016-07-01", "fortnightly", 2)
    with pytest.raises(ValueError, match="start"):
        time_labels.dated_steps("July 1st", "h", 2)


class _Recorder(nn.Module):
    """Stands in for an AttentionLayer: records which tau and delta the library hands it."""

    def __init__(self, log, name):
        super().__init__()
        self.log, self.name = log, name

    def forward(self, q, k, v, attn_mask=None, tau=None, delta=None):
        self.log.append((self.name, tau is not None, delta is not None))
        return q, None


@pytest.mark.parametrize("n_layers,distil", [(3, False), (3, True), (2, True), (1, True)])
def test_which_layers_get_tau_and_delta_in_the_encoder(n_layers, distil):
    log = []
    layers = [EncoderLayer(_Recorder(log, i), 4, d_ff=4).double().eval() for i in range(n_layers)]
    convs = [ConvLayer(4).double().eval() for _ in range(n_layers - 1)] if distil else None
    Encoder(layers, convs)(torch.randn(1, 16, 4), tau=torch.ones(1, 1), delta=torch.zeros(1, 16))
    assert [(t, d) for _, t, d in log] == [ds.factors_passed("encoder", i, n_layers, distil) for i in range(n_layers)]


def test_decoder_self_attention_gets_tau_only_cross_attention_both():
    log = []
    layer = DecoderLayer(_Recorder(log, "self"), _Recorder(log, "cross"), 4, d_ff=4).double().eval()
    layer(torch.randn(1, 5, 4), torch.randn(1, 7, 4), tau=torch.ones(1, 1), delta=torch.zeros(1, 7))
    assert log == [("self", *ds.factors_passed("decoder_self", 0, 1)),
                   ("cross", *ds.factors_passed("decoder_cross", 0, 1))]
    with pytest.raises(ValueError, match="block"):
        ds.factors_passed("bottleneck", 0, 1)


def test_float32_agrees_with_the_library_within_capture_tolerance():
    """The capture checks recorded calls at 1e-6 in float32: the steps keep to that on float32 data."""
    g = torch.Generator().manual_seed(14)
    q, k, v = (torch.randn(2, 24, 2, 4, generator=g, dtype=torch.float32) for _ in range(3))
    tau = torch.rand(2, 1, generator=g, dtype=torch.float32) + 0.5
    delta = torch.randn(2, 24, generator=g, dtype=torch.float32)
    V, A = DSAttention(False, output_attention=True).eval()(q, k, v, None, tau=tau, delta=delta)
    ours = ds.ds_attention(q, k, v, tau, delta)
    _close(ours.weights, A, 1e-6)
    _close(ours.output, V, 1e-6)
    for training in (False, True):
        V = AutoCorrelation(factor=2).train(training)(q, k, v, None)[0]
        _close(ac.autocorrelation(q, k, v, factor=2, training=training).output, V, 1e-6)


def test_bad_pyramid_and_date_inputs_name_the_field():
    with pytest.raises(ValueError, match="inner_size"):
        pyr.pyramid_mask(8, [2], 0)
    with pytest.raises(ValueError, match="input_size"):
        pyr.pyramid_mask(0, [2], 3)
    with pytest.raises(ValueError, match="start"):
        time_labels.dated_steps(20160701, "h", 2)
    with pytest.raises(ValueError, match="steps"):
        time_labels.dated_steps("2016-07-01", "h", -1)


def test_even_inner_size_sees_one_more_neighbour_as_in_the_library():
    mask, _ = pyr.pyramid_mask(12, [3], 4)
    assert [s for s in range(16) if not mask[5, s]] == [3, 4, 5, 6, 7, 13]  # 5 steps and its parent (node 1)
    assert torch.equal(mask, get_mask(12, [3], 4)[0])


# ---------------------------------------------------------------- explain lines (hand numbers)


def test_ds_cell_line_spells_out_the_scale_on_delta():
    q = torch.tensor([1.0, 2.0, 0.0, 0.0])[None, None, None, :]  # B = L = H = 1, E = 4: scale 0.5
    k = torch.tensor([3.0, 1.0, 0.0, 0.0])[None, None, None, :]
    tau, delta = torch.tensor([[2.0]]), torch.tensor([[3.0]])
    parts = ds.ds_attention(q, k, k, tau, delta)
    assert ds.describe_cell(parts, tau, delta, 0, 0, 0, 0, "en") == \
        "q·k = 5; × τ 2 + Δ 3 = 13; the softmax sees scale 0.5 × 13 = 6.5 (so Δ adds scale × Δ = 1.5, not Δ)"
    assert "scale × Δ = 1.5" in ds.describe_cell(parts, tau, delta, 0, 0, 0, 0, "zh")


def test_layer_norm_line_shows_mean_and_variance():
    x = torch.tensor([[1.0, 2.0, 3.0, 6.0]])
    w, b = torch.ones(4), torch.tensor([0.0, 0.0, 0.0, 1.0])
    parts = enc.layer_norm(x, w, b)
    # 3 / sqrt(3.5 + 1e-5) = 1.60356…, + 1 = 2.60356…
    assert enc.describe_layer_norm(x, parts, w, b, (0,), 3, "en") == \
        "mean 3, variance 3.5 (over 4 values); (6 − 3) / √(3.5 + 1e-5) = 1.604; × γ 1 + β 1 = 2.604"


def test_conv_line_names_the_steps_and_the_wrap():
    x = torch.arange(5.0)[None, :, None]
    conv = enc.circular_conv_matmul(x, torch.tensor([[[1.0, 10.0, 100.0]]]), torch.tensor([0.5]), pad=2)
    assert enc.describe_conv_cell(conv, torch.tensor([0.5]), 5, 0, 0, 0, "en") == [
        "step 0 = bias 0.5 + Σ over 1 channels × 3 taps of input steps 3, 4, 0 = 43.5",  # 3 + 40 + 0 + 0.5
        "steps 3, 4 are wrapped round from the other end (circular padding)"]
    assert enc.describe_conv_cell(conv, torch.tensor([0.5]), 5, 0, 2, 0, "en") == [
        "step 2 = bias 0.5 + Σ over 1 channels × 3 taps of input steps 0, 1, 2 = 210.5"]


def test_pool_line_names_the_winning_step():
    # middle tap only: conv step t holds x[(t - 1) mod 5] -> [0, 5, -1, 2, 7, 0, 5]; BatchNorm the identity
    w = enc.DistilWeights(torch.tensor([[[0.0, 1.0, 0.0]]]), torch.zeros(1), torch.zeros(1),
                          torch.ones(1) - 1e-5, torch.ones(1), torch.zeros(1))
    parts = enc.distil(torch.tensor([5.0, -1.0, 2.0, 7.0, 0.0])[None, :, None], w)
    assert parts.pooled[0, :, 0].tolist() == [5.0, 5.0, 7.0, 5.0]
    assert parts.pool_argmax[0, :, 0].tolist() == [1, 1, 4, 6]
    assert enc.describe_pool_cell(parts, 0, 2, 0, "en") == "max of conv steps 3, 4, 5 = 7, from step 4"
    assert enc.describe_pool_cell(parts, 0, 0, 0, "zh") == "卷积第 0, 1 步中的最大值 = 5，来自第 1 步"


def test_pyramid_mask_rule_shape_and_node_labels():
    sizes = pyr.pyramid_sizes(8, [2, 2])  # 8 + 4 + 2 = 14 nodes
    m = pyr.mask_for(3, 14, 14, 8, [2, 2], 3)
    assert m.shape == (3, 14, 14) and torch.equal(m[2], get_mask(8, [2, 2], 3)[0])
    with pytest.raises(ValueError, match="14 nodes"):
        pyr.mask_for(1, 8, 8, 8, [2, 2], 3)
    labels = pyr.node_labels(sizes, "en")
    assert labels[0] == "scale 1 node 1" and labels[8] == "scale 2 node 1" and labels[13] == "scale 3 node 2"


def test_crossformer_segments_pad_to_whole_segments():
    # 30 steps, segments of 12: padded by 6 to 36, three segments, the last half padding
    assert time_labels.segment_labels(30, lang="en") == \
        ["segment 1 · t 0–11", "segment 2 · t 12–23", "segment 3 · t 24–35 (30–35 repeat t 29)"]
    assert time_labels.segment_labels(24, lang="zh") == ["第 1 段 · t 0–11", "第 2 段 · t 12–23"]
    assert len(time_labels.segment_labels(96)) == math.ceil(96 / 12)
