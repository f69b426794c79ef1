"""``LBFGS``: limited-memory BFGS with an optional strong-Wolfe line search, as ``torch.optim.LBFGS``.

The algorithm works on one flat vector holding every parameter, so it keeps all of its history (``old_dirs``,
``old_stps``, ...) as 1-D tensors in the state of the first parameter, exactly where PyTorch keeps it.
"""
from __future__ import annotations

import math

from ..tensor import Tensor
from ..device import array_module
from .optimizer import Optimizer, as_float, check_lr, np, real_view

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    r"""Implements L-BFGS, heavily inspired by `minFunc`.

    Each call to :meth:`step` runs up to ``max_iter`` quasi-Newton iterations and therefore needs a ``closure``
    that clears the gradients, recomputes the loss, calls ``backward()`` and returns the loss.

    .. warning::
        This optimizer does not support per-parameter options or parameter groups: there can be only one group.

    Args:
        params (iterable): iterable of parameters or named parameters to optimize.
        lr (float, optional): learning rate, the initial step length (default: 1).
        max_iter (int, optional): maximal number of iterations per optimization step (default: 20).
        max_eval (int, optional): maximal number of function evaluations per optimization step
            (default: ``max_iter * 1.25``).
        tolerance_grad (float, optional): termination tolerance on first-order optimality, the largest absolute
            gradient entry (default: 1e-7).
        tolerance_change (float, optional): termination tolerance on function value / parameter changes
            (default: 1e-9).
        history_size (int, optional): update history size (default: 100).
        line_search_fn (str, optional): ``None`` (a fixed step of ``lr``) or ``"strong_wolfe"`` (default: None).

    Example:
        >>> optimizer = ember.optim.LBFGS(model.parameters(), line_search_fn="strong_wolfe")
        >>> def closure():
        ...     optimizer.zero_grad()
        ...     loss = loss_fn(model(input), target)
        ...     loss.backward()
        ...     return loss
        >>> optimizer.step(closure)
    """

    _state_has_param_shapes = False  # its state holds flat vectors over all parameters

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        check_lr(lr)
        if not isinstance(max_iter, int) or isinstance(max_iter, bool) or max_iter < 1:
            raise ValueError(f"max_iter must be a positive int, got {max_iter!r}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        if not isinstance(history_size, int) or history_size < 1:
            raise ValueError(f"history_size must be a positive int, got {history_size!r}")
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"line_search_fn must be None or 'strong_wolfe', got {line_search_fn!r}")
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def __setstate__(self, state):
        super().__setstate__(state)
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a state returned by :meth:`state_dict` (see :meth:`Optimizer.load_state_dict`)."""
        super().load_state_dict(state_dict)
        self._params = self.param_groups[0]["params"]

    # -- flat-vector views of the parameters -----------------------------------------------------------------
    def _numel(self) -> int:
        if self._numel_cache is None:
            self._numel_cache = sum(real_view(p._data).size for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        parts = []
        for p in self._params:
            if p._grad is None:
                parts.append(p._xp.zeros(real_view(p._data).size, dtype=real_view(p._data).dtype))
            else:
                parts.append(real_view(p._grad._data).reshape(-1))
        return _concat(parts)

    def _add_grad(self, step_size: float, direction) -> None:
        offset = 0
        for p in self._params:
            view = real_view(p._data)
            n = view.size
            view += (step_size * direction[offset:offset + n]).reshape(view.shape).astype(view.dtype, copy=False)
            p._bump_version()
            offset += n
        assert offset == self._numel()

    def _clone_param(self):
        return [p._data.copy() for p in self._params]

    def _set_param(self, saved) -> None:
        for p, data in zip(self._params, saved):
            p._data[...] = data
            p._bump_version()

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(as_float(self._eval_closure(closure)))
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    # -- the algorithm ---------------------------------------------------------------------------------------
    def step(self, closure=None):
        """Perform a single optimization step (up to ``max_iter`` L-BFGS iterations).

        Args:
            closure (Callable): a closure that re-evaluates the model and returns the loss.

        Returns:
            the loss the closure returned on its first evaluation.
        """
        if closure is None:
            raise TypeError("LBFGS.step() requires a closure that re-evaluates the model and returns the loss, "
                               "e.g. optimizer.step(closure)")
        group = self.param_groups[0]
        lr = as_float(group["lr"])
        max_iter = group["max_iter"]
        max_eval = group["max_eval"]
        tolerance_grad = group["tolerance_grad"]
        tolerance_change = group["tolerance_change"]
        line_search_fn = group["line_search_fn"]
        history_size = group["history_size"]

        # All state lives in the first parameter's entry, as in PyTorch.
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = self._eval_closure(closure)
        loss = float(as_float(orig_loss))
        current_evals = 1
        state["func_evals"] += 1

        flat_grad = self._gather_flat_grad()
        opt_cond = float(abs(flat_grad).max()) <= tolerance_grad
        if opt_cond:
            return orig_loss

        d = _array_of(state.get("d"))
        t = state.get("t")
        old_dirs = [_array_of(x) for x in state.get("old_dirs", [])]
        old_stps = [_array_of(x) for x in state.get("old_stps", [])]
        ro = list(state.get("ro", []))
        H_diag = state.get("H_diag")
        H_diag = float(as_float(H_diag)) if H_diag is not None else None
        prev_flat_grad = _array_of(state.get("prev_flat_grad"))
        prev_loss = state.get("prev_loss")
        al = list(state.get("al") or [None] * history_size)

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # -- compute the descent direction
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1.0
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = float(y @ s)
                if ys > 1e-10:  # keep the pair only when the curvature condition holds
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / float(y @ y)
                num_old = len(old_dirs)
                if len(al) < history_size:
                    al.extend([None] * (history_size - len(al)))
                # two-loop recursion: d = -H g
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = float(old_stps[i] @ q) * ro[i]
                    q -= al[i] * old_dirs[i]
                d = r = q * H_diag
                for i in range(num_old):
                    be_i = float(old_dirs[i] @ r) * ro[i]
                    r += (al[i] - be_i) * old_stps[i]

            prev_flat_grad = flat_grad.copy()
            prev_loss = loss

            # -- compute the step length
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / float(abs(flat_grad).sum())) * lr
            else:
                t = lr
            gtd = float(flat_grad @ d)  # directional derivative
            if gtd > -tolerance_change:
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                x_init = self._clone_param()

                def obj_func(x, step_t, direction):
                    return self._directional_evaluate(closure, x, step_t, direction)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(obj_func, x_init, t, d, loss, flat_grad, gtd)
                self._add_grad(t, d)
                opt_cond = float(abs(flat_grad).max()) <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    # re-evaluate unless this is the last iteration (then the caller's next step() will)
                    loss = float(as_float(self._eval_closure(closure)))
                    flat_grad = self._gather_flat_grad()
                    opt_cond = float(abs(flat_grad).max()) <= tolerance_grad
                    ls_func_evals = 1

            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            # -- check the stopping conditions
            if n_iter == max_iter:
                break
            if current_evals >= max_eval:
                break
            if opt_cond:
                break
            if float(abs(d * t).max()) <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state["d"] = Tensor._make(d)
        state["t"] = t
        state["old_dirs"] = [Tensor._make(x) for x in old_dirs]
        state["old_stps"] = [Tensor._make(x) for x in old_stps]
        state["ro"] = ro
        state["H_diag"] = H_diag
        state["prev_flat_grad"] = Tensor._make(prev_flat_grad)
        state["prev_loss"] = prev_loss
        state["al"] = al
        return orig_loss


def _concat(parts):
    if not parts:
        return np.zeros(0)
    first = parts[0]
    xp = np if type(first) is np.ndarray else array_module(first)
    return xp.concatenate(parts) if len(parts) > 1 else first.copy()


def _array_of(value):
    if value is None:
        return None
    return value._data if isinstance(value, Tensor) else value


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, clipped to ``bounds`` (default: the
    interval between x1 and x2); the bounds' midpoint when the cubic has no real minimizer."""
    if bounds is not None:
        lo, hi = bounds
    else:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 * d1 - g1 * g2
    if d2_square >= 0:
        d2 = math.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, lo), hi)
    return (lo + hi) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Line search along ``d`` for a step ``t`` meeting the strong Wolfe conditions (sufficient decrease with
    ``c1``, curvature with ``c2``): bracket a minimum, then zoom in with safeguarded cubic interpolation.

    Returns ``(f_new, g_new, t, func_evals)``.
    """
    d_norm = float(abs(d).max())
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = float(g_new @ d)

    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    ls_iter = 0
    bracket = bracket_f = bracket_g = bracket_gtd = None
    # -- bracketing phase
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g, bracket_gtd = [t], [f_new], [g_new], [gtd_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        # extrapolate
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = float(g_new @ d)
        ls_iter += 1

    if ls_iter == max_ls:  # reached the iteration limit while extrapolating
        bracket, bracket_f, bracket_g, bracket_gtd = [0.0, t], [f, f_new], [g, g_new], [gtd, gtd_new]

    # -- zoom phase: shrink the bracket until a point satisfies the conditions
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        # Safeguard: a point too close to either end of the bracket makes little progress; move it inwards.
        hi_b, lo_b = max(bracket), min(bracket)
        eps = 0.1 * (hi_b - lo_b)
        if min(hi_b - t, t - lo_b) < eps:
            if insuf_progress or t >= hi_b or t <= lo_b:
                t = hi_b - eps if abs(t - hi_b) < abs(t - lo_b) else lo_b + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False

        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = float(g_new @ d)
        ls_iter += 1

        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            # sufficient decrease fails: the new point becomes the high end
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True  # the Wolfe conditions hold
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                # the old high end becomes the low end
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos], bracket_gtd[high_pos] = bracket_g[low_pos], bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new

    t = bracket[low_pos]
    return bracket_f[low_pos], bracket_g[low_pos], t, ls_func_evals
