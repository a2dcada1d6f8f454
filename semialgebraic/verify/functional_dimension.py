r"""Checker of ``functional_dimension`` certificates: a certified *lower bound* of the functional
dimension (three-layer-fibers R22, any depth) and, when ``upper_directions`` is given, a
certified *upper bound*.

Schema (version 1; built by :func:`semialgebraic.certificates.dimension_bounds_certificate`)::

    {"format": "netfibers.certificate", "type": "functional_dimension",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "rank of the Jacobian of theta -> (f_theta(x))_x >= lower"     (lower bound only)
            | "lower <= functional dimension <= upper",                     (upper certified too)
     "network": <network>, "domain": null | {"box": [lo, hi]} | {"orthant": true},
     "prime": p, "inputs": [[x_0, ..., x_{d-1}], ...], "lower": r,
     "upper": u,                                  # only with one of the three certificates below
     "upper_directions": [<entry>, ...],          # optional: certifies upper >= N - rank
     "upper_regions": [<region>, ...],            # optional: certifies upper = rank on all regions
     "upper_one_point": true,                     # optional, one-point box {x0}: certifies upper
                                                  #   = exact rank of the m rows at x0 (the value)
     "shared_proofs": [<shared proof>, ...],      # optional: proofs stored once, referred to
                                                  #   by index (functional_dimension_emptiness)
     "upper_reason": "...",                       # optional text, informational
     "uncertified_upper_reason": "...",           # optional text, informational (what is missing)
     "fiber_moves": [<move>, ...],                # optional, with fiber_lower: moves that keep the
     "fiber_lower": k}                            #   function, rank >= k: fiber dimension >= k (R40,
                                                  #   :mod:`.functional_dimension_fiber`)

``p`` (JSON int, a prime below 2^20), ``lower`` and ``upper`` (JSON ints), inputs (exact
numbers).  The claim names what is certified: the upper-bound claim exactly when one of
``upper_directions``, ``upper_regions``, ``upper_one_point`` is present, and then ``upper`` is
required; without them ``upper`` must be absent (a reported upper bound that nothing certifies
belongs in the report, not in the certificate).  The two texts are free prose for the reader:
they never enter a check and assert nothing.  No other key is accepted.

Entries of ``upper_directions`` (``l`` a 0-based hidden layer, ``i`` a neuron of it; every
vector is built here from θ, every fact re-derived here)::

    ["scale", l, i]              positive-scaling generator (S2)
    ["dead", l, i]               neuron dead by exact interval bounds: unit vectors of its
                                 incoming row, bias and outgoing column
    ["dead_proof", l, i, P]      the same, dead by the emptiness proof P of {z_l[i] > 0}
    ["free", k, proof]           unit vector of parameter k, never exercised (verify.exercise)
    ["active", l, i]             always active by interval bounds: the bias trade
    ["active_proof", l, i, P]    the same, by the emptiness proof P of {z_l[i] < 0}
    ["block", l, [i1, i2, ...]]  always-active neurons (interval bounds or an active_proof entry
                                 of the same certificate): the GL directions of the block (S4)
    ["block_kernel", l, [i1, i2, ...]]
                                 the same neurons (proven always active): Σ_m t_m e(W_l[m,c])
                                 (every c) and Σ_m t_m e(b_l[m]) for a basis t (built here) of the
                                 kernel of W_{l+1}[:, block] (R34 (f))
    ["masked", l, i, [P, ...]]   masked neuron: the bias trade (S6), one emptiness proof of
                                 {z_l[i] < 0, z_{l+1}[j] > 0} per successor j (W_{l+1}[j,i] != 0)
                                 that is not dead
    ["constant", l, i]           b_l[i] > 0 and every W_l[i,c] != 0 has c dead (interval bounds or
                                 a dead_proof entry; none for l = 0): e(W_{l+1}[k,i]) −
                                 b_l[i] e(b_{l+1}[k]) for every row k
    ["dead_inputs", l, i]        b_l[i] <= 0 and every W_l[i,c] != 0 has c dead (none for l = 0):
                                 dead at every differentiable input, the vectors of "dead"
                                 (three-layer-fibers R35 (b))
    ["unseen", l, i, [j, ...]]   layer l+1 hidden, b_l[i] = 0, every W_l[i,c] != 0 has c dead:
                                 Σ_j W_{l+1}[j,i] e(W_{l+1}[j,c]) (every c) and Σ_j W_{l+1}[j,i]
                                 e(b_{l+1}[j]); each listed j (layer l+1 the last hidden one) has,
                                 for some output o, c_j = W_{l+1}[j,i]·W_L[o,j] != 0 and every
                                 non-zero c_k of the sign of c_j: dead, the vectors of "dead"
                                 (R35 (c), (d)); these entries are read in order, after the
                                 dead_proof entries, each one's dead neurons usable by the next
    ["masked_pair", l, [i, i2]]  i, i2 always active or masked (a masked entry earlier in the
                                 list), and i2 always active or every live successor of i (weight
                                 != 0, not dead) one of i2: the S4 direction row i += row i2,
                                 b_l[i] += b_l[i2], column i2 of W_{l+1} −= column i (R35 (e))
    ["silent", l, i]             δ_l[i] ≡ 0 (re-derived, see below): unit vectors of the incoming
                                 row and bias
    ["incoming", l, i, Q]        directions on the incoming row and bias of (l, i) orthogonal to
                                 every (h_{l-1}, 1) on its active set, from the complete enumeration
                                 Q of that set
    ["duplicate", l, [r, m, ...]]
                                 >= 2 distinct neurons whose rows are exact positive multiples
                                 (W_l[m,·], b_l[m]) = c_m (W_l[r,·], b_l[r]), W_l[r,·] != 0:
                                 c_m e(W_{l+1}[k,r]) − e(W_{l+1}[k,m]) (every m != r, row k) and
                                 Σ_m t_m e(W_l[m,c]), Σ_m t_m e(b_l[m]) (every c) for a basis t
                                 (built here) of the kernel of W_{l+1}[:, group]
    ["opposite", l, [r, m]]      (W_l[m,·], b_l[m]) = −c (W_l[r,·], b_l[r]), c > 0, W_l[r,·] != 0,
                                 and W_{l+1}[:,m] = μ W_{l+1}[:,r], μ != 0, W_{l+1}[:,r] != 0:
                                 e(b_l[r]) + (1/μ) e(b_l[m]) − Σ_k W_{l+1}[k,r] e(b_{l+1}[k])
    ["fixed_successors", l, i, signs, {"shared": k}]
                                 layer l+1 hidden; signs: one of -1, 0, 1 per neuron j of layer
                                 l+1, F = {j : signs[j] != 0} (not empty); entry k of
                                 shared_proofs shows, for every j in F, that no input has
                                 z_l[i] > 0 and -signs[j]·z_{l+1}[j] > 0.  Directions: the vectors
                                 Σ_{j∈F} t_j e(W_{l+1}[j, i]) for a basis (built here) of the
                                 kernel of C = W_{l+2}[:, F]·diag([signs[j] > 0])

An *emptiness proof* ``P = {"targets": [[t, j, s], ...], "domain": ..., "order": [[t, j], ...],
"refuted": [{"path": [[t, j, s], ...], "certificate": [y, ...], "bound": true?}, ...]}`` (the
format of :mod:`semialgebraic.verify.exercise`, made by
:func:`semialgebraic.dimension.jacobian_columns.phase_search`) shows that no input of the domain with every
pre-activation non-zero has sign(z_t[j]) = s for all targets: ``order`` lists every neuron of
the layers below the deepest target (identically zero neurons excepted) and the targets of that
layer, layer by layer; the refuted partial patterns (target signs fixed) cover every branch, each
refuted by a Motzkin certificate of its strict system (optionally with the affine upper bound of
the first positive target, re-derived).  A proof ``P`` (and the proof of a ``free`` entry that names
``W_l[i,k]`` between two hidden layers, then about the targets ``[[l-1, k, 1], [l, i, 1]]``:
never active together) may instead be a *branch-and-bound emptiness proof* ``{"targets": ...,
"bab_tree": <tree>}`` (:mod:`semialgebraic.verify.functional_dimension_emptiness`): it shows
the closed statement that no input of the domain at all has every target sign strictly; or a
reference ``{"targets": ..., "shared": i}`` to entry ``i`` of ``shared_proofs`` (one tree for
several never-co-active pairs, checked once; an entry nothing refers to is malformed).
``Q`` has the same fields plus ``"leaves"``: the full
patterns (paths) not refuted; every branch must end in a refutation or a listed leaf.

What is checked (exact; imports ``algebra`` and other ``verify`` modules only):

1. the certificate lists at least one input; every input lies in the domain and is a
   *differentiable input*: ``theta -> f_theta(x)`` is differentiable there by the rule of
   :mod:`algebra.kernel.differentiability` (every neuron with a zero pre-activation, a zero row
   with a zero bias included, is unseen by the network above it: ∂f/∂h = 0 for every output);
   the Jacobian row there is the closed form with the masks of the signs, kinks masked 0;
2. ``p`` is a prime dividing no denominator of a parameter or of an input;
3. the Jacobian rows ``∂f_o(x)/∂θ`` (closed form: ``∂f/∂W_l[i,k] = δ_l[i] h_{l-1}[k]``,
   ``∂f/∂b_l[i] = δ_l[i]``, ``δ`` back-propagated through the masks) reduced mod p have rank
   ``>= lower``;
4. when ``upper_directions`` is given: each entry's fact holds and ``upper >= N − rank`` of the
   vectors they name, the rank taken mod p (of the vectors whose entries are p-integral, a
   subset; rank_p <= rank_Q, so N − rank_p is still an upper bound) or else exactly over Q
   (within 10^7 entries; a claim weaker than the directions prove is true too; until
   2026-12-04 equality was required).  The vectors are sparse (dicts): a net with hundreds of
   thousands of parameters is checked without dense N-lists.

Why this proves ``functional dimension >= lower``: a non-zero r×r minor mod p of the reduced
rows is the reduction of the same minor over Q, which is then non-zero; so the rational rank
of the rows, and the functional dimension (the largest rank of such rows over finite input
sets), is at least r.

Why step 4 proves ``<= upper``: every listed vector v satisfies J(x)·v = 0 at every
*differentiable input* x of the domain (as in step 1), so the rank of any set of rows is at most
N − rank(span).  At a differentiable input a kink neuron has h = 0 and δ = 0 under either mask
(:mod:`algebra.kernel.differentiability`), so each argument below may give it the mask it needs
(dead: 0, always active: 1).  The proofs refute strict sign systems; their facts are open
conditions and extend from the inputs with every branched neuron non-zero to every
differentiable input by density, unless a branch has a neuron whose affine form is identically
zero: such proofs are rejected (:func:`algebra.kernel.differentiability.vanishing_on_path`).  Write
D_l = diag(mask), δ_{L} = e_o, δ_l = D_l W_{l+1}ᵀ δ_{l+1}, J·v = Σ_l Σ_i δ_l[i] (v_{W_l[i,·]}·h_{l-1}
+ v_{b_l[i]}).  A neuron is *dead* if z_l[i](x) <= 0 on the domain (interval bounds: hi <= 0; a
proof: no differentiable input has z > 0); at a differentiable input then z < 0 (or the neuron is
identically zero), so D_l[i] = 0 and h_l[i] = 0.  It is *always active* if z_l[i] >= 0 on the
domain and it is not identically zero (interval bounds: lo >= 0; or a proof that z < 0 never
occurs); then D_l[i] = 1 and h_l[i] = z_l[i] at differentiable inputs.  A neuron shown both dead
and always active (z = 0 on the whole domain) is used as dead only.

* scale: f is invariant under positive rescaling of one neuron; differentiating along the curve
  gives J·v = 0 (three-layer-fibers R9, S2).
* dead: δ_l[i] = D_l[i](…) = 0 kills the incoming row and bias; h_l[i] = 0 kills
  ∂f/∂W_{l+1}[j,i] = δ_{l+1}[j] h_l[i].
* free: the column ∂f/∂θ_k is zero at every differentiable input (its proof).
* silent: δ_l[i] = D_l[i] Σ_j W_{l+1}[j,i] δ_{l+1}[j] vanishes identically when the neuron is
  dead, or (last hidden layer) W_{l+1}[:, i] = 0 (δ_{l+1} = e_o), or every successor j with
  W_{l+1}[j,i] != 0 is silent (recursively, the deeper layer first); then the incoming row and
  bias have zero Jacobian columns.
* active (bias trade, R11/R13): v = e_{b_l[i]} − Σ_j W_{l+1}[j,i] e_{b_{l+1}[j]} gives
  J·v = δ_l[i] − Σ_j W_{l+1}[j,i] δ_{l+1}[j] = (D_l[i] − 1) Σ_j W_{l+1}[j,i] δ_{l+1}[j] = 0 as
  D_l[i] = 1.  (The line θ + t v is even an exact symmetry near each such x: h_l[i] grows by t,
  and b_{l+1} absorbs t·W_{l+1}[:, i].)
* masked (S6): the same v, now with D_l[i] = 0 possible; but where z_l[i] < 0 every successor
  j with W_{l+1}[j,i] != 0 is inactive (the proofs, or the successor is dead), so
  δ_{l+1}[j] = D_{l+1}[j](…) = 0 and the sum vanishes; where z_l[i] = 0 the neuron is a kink of
  a differentiable input, unseen: the sum is 0 too (R35 (a)).  Needs layer l+1 hidden.
* dead_inputs, unseen (R35): at a differentiable input the dead inputs have h = 0, so
  z_l[i] = b_l[i]; b < 0: D = 0, h = 0; b = 0: a kink, h = 0, δ = 0, and by the rule of step 1
  e_l[i] = Σ_j W_{l+1}[j,i] δ_{l+1}[j] = 0 for every output, the column of Σ_j W_{l+1}[j,i]
  e(W_{l+1}[j,c]) being h_l[c]·e_l[i] and that of Σ_j W_{l+1}[j,i] e(b_{l+1}[j]) being e_l[i].
  With layer l+1 the last hidden one, e_l[i] = Σ_j c_j D_{l+1}[j] (kinks masked 0) for output o,
  so one sign of the non-zero c_j forces D_{l+1}[j] = 0 (z <= 0, h = 0, δ = 0) wherever c_j != 0.
  Every use of "dead" here (silent, constant, masked, these entries) needs only h = 0 and D = 0
  at differentiable inputs.
* masked_pair (R35 (e)): J·v = e_l[i] z_l[i2] (D_l[i] − D_l[i2]); where e_l[i] != 0 a live
  successor of i is active, so z_l[i] > 0 (z = 0 would be a kink seen from above) and
  z_l[i2] >= 0 (always active, or its masked proofs cover that successor): the product is 0.
* block (S4, R11): for a set B of always-active neurons of layer l, h_l[B] = W_l[B] h_{l-1} +
  b_l[B] at differentiable inputs, and z_{l+1} = W_{l+1}[:,B] h_l[B] + (rest).  For i != i2 in B
  let E = e_i e_{i2}ᵀ (E² = 0, so (I + tE)⁻¹ = I − tE exactly).  θ + t v with v: row i of W_l
  += W_l[i2,·], b_l[i] += b_l[i2], column i2 of W_{l+1} −= W_{l+1}[·,i], is exactly
  W_l[B] → (I + tE) W_l[B], b_l[B] → (I + tE) b_l[B], W_{l+1}[:,B] → W_{l+1}[:,B](I − tE): at a
  fixed differentiable x the new pre-activations of B are z_l[B] + t E z_l[B] > 0 for small |t|
  (still active), so z_{l+1} = W_{l+1}[:,B](I − tE)(I + tE) z_l[B] + (rest) is unchanged: f_{θ+tv}(x)
  = f_θ(x) for small |t|, hence J(x)·v = 0.
* block_kernel (R34 (f)): D_l = 1 on the block at a differentiable input (a kink is unseen:
  its δ is 0 = its e), so δ_l[m] = W_{l+1}[:,m]ᵀ δ_{l+1} and Σ_m t_m δ_l[m] = (C t)ᵀ δ_{l+1} = 0;
  the columns of Σ_m t_m e(W_l[m,c]) and Σ_m t_m e(b_l[m]) are Σ_m t_m δ_l[m] (h_{l-1}[c], 1) = 0.
* fixed_successors (a rare neuron whose successors' signs are fixed on its active set S =
  {z_l[i] > 0}; [derived], the argument here): for v = Σ_{j∈F} t_j e(W_{l+1}[j,i]),
  J_o·v = h_l[i] Σ_{j∈F} t_j δ_{l+1}[j], and δ_{l+1}[j] = D_{l+1}[j] g_j with
  g_j = Σ_k W_{l+2}[k,j] δ_{l+2}[k] = ∂f_o/∂h_{l+1}[j] (δ_{l+2} = e_o when layer l+2 is the
  output).  At a differentiable x: if h_l[i](x) = 0 (z <= 0, a kink included) J_o·v = 0.  Else
  z_l[i](x) > 0, so the proof gives signs[j]·z_{l+1}[j](x) >= 0 for j in F (it excludes every
  input, differentiable or not, with both strict signs): where > 0, D_{l+1}[j] = [signs[j] > 0];
  where = 0 the neuron is a kink of a differentiable input, so g_j = 0 and D_{l+1}[j] g_j = 0 =
  [signs[j] > 0] g_j under either mask.  Hence J_o·v = h_l[i] Σ_k δ_{l+2}[k] (C t)[k] = 0 for
  t in ker C.  Only the pattern of layer l+1 on S is used (δ_{l+2} may vary freely with x); a
  successor left out of F (signs 0) only forces t_j = 0.
* duplicate (three-layer-fibers R34): z_l[m] = c_m z_l[r] as functions of x, so h_l[m] =
  c_m h_l[r] and the masks of the group agree (at a common kink of a differentiable input every
  δ_l[m] = 0).  ∂f/∂W_{l+1}[k,m] = δ_{l+1}[k] h_l[m] = c_m ∂f/∂W_{l+1}[k,r] gives the outgoing
  trades; δ_l[m] = D (W_{l+1}[:,m]ᵀ δ_{l+1}) with one mask D gives Σ_m t_m δ_l[m] = D (C t)ᵀ
  δ_{l+1} = 0 for C t = 0, so Σ_m t_m ∂f/∂W_l[m,c] = 0 and Σ_m t_m ∂f/∂b_l[m] = 0.
* opposite (R34 (d)): z_l[m] = −c z_l[r], so D_l[m] = 1 − D_l[r] where z_l[r] != 0, and
  δ_l[r] + δ_l[m]/μ = (D_l[r] + D_l[m]) W_{l+1}[:,r]ᵀ δ_{l+1} = Σ_k W_{l+1}[k,r] ∂f/∂b_{l+1}[k];
  where z_l[r] = 0 at a differentiable input both are unseen kinks: W_{l+1}[:,r]ᵀ δ_{l+1} = 0
  and both δ vanish.  So J·v = 0.
* constant (R34 (e)): at a differentiable input the dead inputs have h = 0, so z_l[i] = b_l[i]
  > 0, h_l[i] = b_l[i] and ∂f/∂W_{l+1}[k,i] = δ_{l+1}[k] b_l[i] = b_l[i] ∂f/∂b_{l+1}[k].
* incoming: ∂f/∂W_l[i,·] = δ_l[i] h_{l-1}, ∂f/∂b_l[i] = δ_l[i], so J·v = δ_l[i] c·(h_{l-1}, 1)
  for v = c on the incoming row and bias.  Where z_l[i] < 0, δ_l[i] = 0; where z_l[i] > 0 the
  input lies in the region of a full pattern of the layers below (with z_l[i] > 0): refuted
  ones are empty, and on a listed leaf (h_{l-1}, 1) = [[M, m], [0, 1]](x, 1) lies in the column
  span V of [[M, m], [0, 1]].  So every c ⊥ V (all of them are added) is a kernel direction.

``upper_regions`` (after a complete region walk) lists the linear regions of the network in the
``region_cover`` format (pattern, interior point, inequalities, facets, neighbours, Farkas
multipliers of the redundant rows; :mod:`semialgebraic.verify.region_cover`).  The checker
re-checks that they cover the domain (the same code as region_cover, with no value claim), then
computes, for every region that holds differentiable inputs (the kernel rule on its pattern; at
least one must), the Jacobian rows with the region's masks at its point x0 and at x0 + e_k
(k < d), and their exact rational rank, which must equal ``upper``.  Why: on a region the rows
are affine in x, so they lie in the span of the rows at x0 and x0 + e_k (their affine
continuation), and conversely those are combinations of rows at x0 and at x0 + ε e_k inside the
region.  A differentiable input x outside every open region lies in the closure of a listed
region R with points arbitrarily near x; R's signs agree with x's off the kinks of x, so R's
pattern is one mask choice at those kinks: R holds differentiable inputs too (the rule at x holds
for every choice) and the row at x is the limit of R's rows, in their span.  So the rank of all rows at differentiable inputs, i.e. the functional dimension, is that
exact rank (an upper bound, and with step 3 the exact value).

Without ``upper_directions`` or ``upper_regions`` the upper bound is reported, not re-checked.
"""

from __future__ import annotations


from algebra.exceptions import InputError
from algebra.io.native import network_from_dict, parse_number, parse_vector
from algebra.linalg import QMatrix, nmod_rank
from algebra.linalg.gfp import SparseEchelon, is_prime, peel_columns, rank_mod_p, residue
from algebra.kernel import box_input_map, compose_input_map, compose_slice_map
from algebra.kernel.certificate_schemas import CLAIMS, check_header

from .functional_dimension_fiber import fiber_vectors
from .functional_dimension_emptiness import SharedProofs
from .functional_dimension_upper import _ZERO, _masks, _one_point_upper, _regions_rank, _upper_vectors

__all__ = ["check"]


def check(cert: dict) -> tuple[bool, str]:
    check_header(cert, "functional_dimension")
    certified = any(k in cert for k in ("upper_directions", "upper_regions")) or \
        cert.get("upper_one_point") is True
    if "upper_one_point" in cert and cert["upper_one_point"] is not True:
        raise InputError("upper_one_point, when present, is true")
    if "upper_one_point" in cert and ("upper_directions" in cert or "upper_regions" in cert):
        raise InputError("upper_one_point is the whole upper-bound certificate of a one-point box")
    if certified != ("upper" in cert):
        raise InputError("'upper' is present exactly when an upper-bound certificate is")
    if cert["claim"] != CLAIMS["functional_dimension"][1 if certified else 0]:
        return False, f"the claim {cert['claim']!r} does not name what is certified"
    for key in ("upper_reason", "uncertified_upper_reason"):
        if key in cert and not isinstance(cert[key], str):
            raise InputError(f"{key} must be a string")
    for key in ("network", "prime", "inputs", "lower"):
        if key not in cert:
            raise InputError(f"functional_dimension certificate lacks {key!r}")
    net = network_from_dict(cert["network"], source="certificate[network]")
    n_user = net.n_parameters
    net, box_note = _read_on_cube(net, cert.get("domain"))
    if net.n_parameters != n_user and ("fiber_moves" in cert or "fiber_lower" in cert):
        # a slice (R36 (b)): the moves would be the free coordinates' network's, whose fiber
        # bounds are not the user's (N' for N: a forged file read "fiber dimension = 4" where it
        # is 13; s42 forge5 audit); dim writes none there
        raise InputError("a certificate on a slice carries no fiber_moves / fiber_lower (they "
                         "would bound the fiber of the network of the free coordinates)")
    p, lower = cert["prime"], cert["lower"]
    if not isinstance(p, int) or isinstance(p, bool) or not isinstance(lower, int) or isinstance(lower, bool):
        raise InputError("prime and lower must be integers")
    if lower < 0:               # (a -1 was VALID: "fiber dimension in [4, 16]" with N = 15, s48)
        raise InputError("lower must be >= 0 (a dimension)")
    if not 2 <= p < 2 ** 20:
        raise InputError("prime must lie in [2, 2^20)")
    if not is_prime(p):
        return False, f"{p} is not a prime"
    inputs = cert["inputs"]
    if not isinstance(inputs, list):
        raise InputError("inputs must be a list of points")
    d = net.n_inputs
    X = [parse_vector(x, f"inputs[{t}]", length=d) for t, x in enumerate(inputs)]
    lo_hi = _domain(cert.get("domain"))
    for t, x in enumerate(X):
        if lo_hi == "orthant" and any(v < 0 for v in x):
            return False, f"input {t} is not in the closed orthant"
        if isinstance(lo_hi, tuple) and any(v < lo_hi[0] or v > lo_hi[1] for v in x):
            return False, f"input {t} is not in the box"
    values = list(net.parameters()) + [v for x in X for v in x]
    if any(int(v.q) % p == 0 for v in values):
        return False, f"the prime {p} divides a denominator of a parameter or an input"
    if not X:       # (at a differentiable input the output biases alone give rank >= 1)
        return False, ("no inputs: the certificate names no differentiable input, so it does not "
                       "show that the functional dimension is defined at this theta")
    masks = _masks(net, X)
    if isinstance(masks, str):
        return False, masks
    if lower <= 0:
        why = "a rank is never negative"
    else:
        rank = _rank_mod_p(net, X, masks, p)
        if rank < lower:
            return False, f"the Jacobian rows at the {len(X)} inputs have rank {rank} mod {p} < {lower}"
        why = (f"the Jacobian rows at {len(X)} inputs have rank {rank} >= {lower} mod {p}, hence over "
               f"Q: functional dimension >= {lower}")
    ok, msg = _upper(cert, net, lo_hi, p, lower, why, box_note)
    if not ok:
        return ok, msg
    fiber = _fiber_floor(net, cert, lo_hi, p, lower)     # (after the upper bound's own checks)
    if isinstance(fiber, tuple):
        return fiber
    return True, msg + fiber


def _upper(cert, net, lo_hi, p: int, lower: int, why: str, box_note: str) -> tuple[bool, str]:
    """The upper bound's part of :func:`check` (*why*: the lower bound's sentence)."""
    dirs, regions = cert.get("upper_directions"), cert.get("upper_regions")
    if cert.get("upper_one_point") is True:
        return _one_point_upper(net, lo_hi, cert.get("upper"), lower, why + box_note)
    if dirs is None and regions is None:
        return True, why + box_note + " (the upper bound is not certified)"
    upper = cert.get("upper")
    if not isinstance(upper, int) or isinstance(upper, bool):
        raise InputError("upper must be an integer")
    how = []
    if "shared_proofs" in cert and dirs is None:
        raise InputError("shared_proofs are referred to by upper_directions entries only")
    if dirs is not None:
        shared = SharedProofs(net, lo_hi, cert.get("shared_proofs", []))
        vectors = _upper_vectors(net, dirs, lo_hi, shared)
        if isinstance(vectors, str):
            return False, vectors
        if shared.unreferenced():
            raise InputError(f"shared_proofs {shared.unreferenced()[:5]} are referred to by no proof")
        if regions is None:
            bound = _directions_bound(net, vectors, p, upper)
            if bound > upper:
                return False, f"N - rank of the listed directions is {bound}, not the claimed upper {upper}"
            N = net.n_parameters       # (entries stand for one or more vectors: "3 proven
            how.append(f"{len(vectors)} proven kernel directions ({len(dirs)} entries) of rank "  # kernel
                       f"{N - bound} give <= N - {N - bound} = {bound}"        # directions give
                       + (f" <= the claimed {upper}" if bound < upper else ""))   # <= 3", N = 7)
        else:                  # beside regions they only spare columns of the regions' rank
            how.append(f"{len(vectors)} proven kernel directions ({len(dirs)} entries), whose "
                       "pivot columns the rows on the regions are determined without")
    if regions is not None:
        rank = _regions_rank(net, regions, lo_hi, vectors if dirs is not None else None, p)
        if isinstance(rank, str):
            return False, rank
        if rank != upper:
            return False, (f"the exact rank of the Jacobian rows on the {len(regions)} regions is {rank}, "
                           f"not the claimed upper {upper}")
        how.append(f"the {len(regions)} listed regions cover the domain and the Jacobian rows on them "
                   f"have exact rank {rank}")
    if upper < lower:
        return False, f"contradiction: certified upper {upper} < certified lower {lower}"
    return True, why + box_note + (f"; upper bound certified: {'; '.join(how)}" +
                        (f"; exact: {upper}" if upper == lower else ""))


def _fiber_floor(net, cert, lo_hi, p: int, lower: int) -> str | tuple:
    """The optional fiber floor (three-layer-fibers R40, :mod:`.functional_dimension_fiber`):
    ``""`` without one, the sentence it adds to the verdict, or ``(False, reason)``."""
    if ("fiber_moves" in cert) != ("fiber_lower" in cert):
        raise InputError("fiber_moves and fiber_lower go together")
    if "fiber_moves" not in cert:
        return ""
    claim = cert["fiber_lower"]
    if not isinstance(claim, int) or isinstance(claim, bool) or claim < 0:
        raise InputError("fiber_lower must be a non-negative integer")
    vectors = fiber_vectors(net, cert["fiber_moves"], lo_hi)
    if isinstance(vectors, str):
        return False, vectors
    N = net.n_parameters      # (rank mod p first; the exact rank when that falls short, as for
    rank = N - _directions_bound(net, [v for v in vectors if v], p, N - claim)   # the upper bound)
    if rank < claim:
        return False, f"the fiber's moves have rank {rank} mod {p} < the claimed fiber_lower {claim}"
    if claim > N - lower:
        return False, (f"contradiction: the fiber's moves give dimension >= {claim} > N - lower = "
                       f"{N - lower} (R22: the fiber's dimension is at most N - rank)")
    moves = len(cert["fiber_moves"])
    if claim == N - lower:
        return f"; fiber dimension = {claim}: >= by {moves} moves (R40), <= N - lower (R22)"
    return f"; fiber dimension in [{claim}, {N - lower}]: >= by {moves} moves (R40), <= N - lower (R22)"


EXACT_ENTRIES = 10 ** 7
"""The exact rank over Q of the directions (dense, k x N rationals) is computed only up to this
many entries; beyond it the rank mod p stands (a 24-24-6000-2 net: 6 000 x 162 602)."""

SPARSE_OPS = 3 * 10 ** 6
"""Entry updates of the sparse echelon form mod p of the peeled directions before the dense
elimination takes over (~1 s of Python)."""

DENSE_BYTES = 1 << 30
"""The dense elimination mod p of the directions (k x N int64) is used, when the sparse echelon
form gives up, only within this many bytes; beyond it the rank of the rows it took."""


def _directions_bound(net, vectors, p: int, upper: int) -> int:
    """N − rank of the proven directions (dicts ``{index: value}``), where N − rank_p (the rank
    of their residues mod *p*, at most the rank over Q; a vector with an entry that has no
    residue left out, a subset) is accepted when it is already at most *upper*: N − rank_Q <= N −
    rank_p, so *upper* is then a valid upper bound (a claim weaker than the directions prove is
    still true: the run's own rank of them may have been cut by its budget); otherwise the exact
    rank over Q decides, within :data:`EXACT_ENTRIES` (beyond it N − rank_p stands).  The
    modular rank makes networks with thousands of parameters and long rationals (ACAS Xu), and
    sparse directions of hundreds of thousands (24-24-6000-2), checkable in seconds."""
    N = net.n_parameters
    if not vectors:
        return N
    rank_p = _vectors_rank_mod_p(vectors, N, p)
    if N - rank_p <= upper or len(vectors) * N > EXACT_ENTRIES:
        return N - rank_p
    dense = []
    for vec in vectors:
        row = [_ZERO] * N
        for k, v in vec.items():
            row[k] = v
        dense.append(row)
    return N - QMatrix.from_rows(dense, ncols=N).rank()


def _vectors_rank_mod_p(vectors, N: int, p: int) -> int:
    """A lower bound of the rank over Q of sparse rational vectors (dicts): the count of pivots
    peeled exactly over Q (:func:`~algebra.linalg.gfp.peel_columns`: unit vectors, then vectors
    alone on a column) plus the rank mod *p* of the rest (the non-zero entries reduced; a vector
    with no residue left out) by the sparse echelon form within :data:`SPARSE_OPS` entry
    updates, else (much fill-in) numpy elimination when numpy is there and the rows fit in
    :data:`DENSE_BYTES` (FLINT's nmod_mat without numpy), else the rank of the rows the sparse
    form took before it gave up (a subset).  16-60-60-8 on a ball of radius 1/100, 6 254
    directions: 11.5 s unpeeled, ~1 s peeled."""
    pivots, rest, cols = peel_columns(vectors)
    rows, N = [], len(cols)                      # (the rest's columns, renumbered)
    for vec in rest:
        try:
            rows.append({k: residue(v, p) for k, v in vec.items() if v != 0})
        except ZeroDivisionError:
            continue
    echelon = SparseEchelon(p, SPARSE_OPS)
    if all(echelon.add(r) is not None for r in rows):
        return len(pivots) + echelon.rank
    if 8 * len(rows) * N > DENSE_BYTES:
        return len(pivots) + echelon.rank
    try:
        import numpy as np
    except ImportError:                                 # pragma: no cover - numpy is optional
        np = None
    if np is None or p >= 1 << 20:                     # (the float64 route needs p < 2^20)
        flat = [0] * (len(rows) * N)
        for i, r in enumerate(rows):
            for k, v in r.items():
                flat[i * N + k] = v
        return len(pivots) + nmod_rank(len(rows), N, flat, p)
    M = np.zeros((len(rows), N), dtype=np.int64)
    for i, r in enumerate(rows):
        for k, v in r.items():
            M[i, k] = v
    return len(pivots) + rank_mod_p(M, p)


def _read_on_cube(net, dom):
    """A box ``∏ [lo_i, hi_i]`` is certified through the cube: ``{"box": [-1, 1], "input_map":
    {"lo": [...], "hi": [...]}}`` names the box; every other entry (inputs, directions, proofs)
    is about ``u ↦ net(c + s ⊙ u)`` on ``[−1, 1]^d`` (c, s: the box's centre and half-widths),
    whose functional dimension is the network's on the box (three-layer-fibers R36: θ ↦ θ' is a
    linear bijection of the parameters and u ↦ x one of the domains).  A box with some sides of
    width 0 (a slice; not all) is read over its free coordinates only, the fixed ones folded
    into the first layer's biases (:func:`~algebra.kernel.compose_slice_map`, R36 (b): θ ↦ θ' is
    linear and onto, the same functional dimension; a fiber bound of the certificate is then
    one of θ' and, as N grows by n1 per fixed coordinate, still one of θ)."""
    if not (isinstance(dom, dict) and "input_map" in dom):
        return net, ""
    imap = dom["input_map"]
    box = dom.get("box")
    if not isinstance(imap, dict) or set(imap) != {"lo", "hi"} or not isinstance(box, list) or \
            len(box) != 2 or [parse_number(v, "domain.box") for v in box] != [-1, 1]:
        raise InputError("domain.input_map is {lo, hi} beside the box [-1, 1]")
    lo, hi = (parse_vector(imap[k], f"domain.input_map.{k}", length=net.n_inputs) for k in ("lo", "hi"))
    cs = box_input_map(lo, hi)
    if cs is not None:
        return compose_input_map(net, *cs), " (on the box, read on [-1, 1]^d: R36)"
    sliced = compose_slice_map(net, lo, hi)     # sides of width 0: the free coordinates (R36 (b))
    if sliced is None:
        raise InputError("domain.input_map: every side finite with lo <= hi, some with lo < hi")
    fixed = sum(1 for a, b in zip(lo, hi) if a == b)
    return sliced, (f" (on the slice of the box, {fixed} coordinate(s) fixed, read on [-1, 1]^"
                    f"{sliced.n_inputs} over the free ones: R36 (b))")


def _domain(dom):
    if dom is None:
        return None
    if isinstance(dom, dict) and "input_map" in dom:
        dom = {"box": dom["box"]}
    if isinstance(dom, dict) and dom.get("orthant") is True:
        return "orthant"
    if isinstance(dom, dict) and isinstance(dom.get("box"), list) and len(dom["box"]) == 2:
        lo, hi = (parse_number(v, "domain.box") for v in dom["box"])
        if lo > hi:
            raise InputError("domain.box: lo > hi")
        return (lo, hi)
    raise InputError(f"unknown domain {dom!r}")


def _rank_mod_p(net, X, masks, p: int) -> int:
    """Rank mod p of the Jacobian rows (input-major, then output): rows assembled with numpy
    int64 arithmetic when numpy is there (exact: entries < p < 2^20, every dot product has fewer
    than 2^20 terms) and ranked by the blocked float64 elimination of the trusted kernel
    (:func:`~algebra.linalg.gfp.rank_mod_p`, exact for p < 2^20; ACAS Xu's 4 600 x 13 305 rows:
    ~8 s against ~55 s by FLINT's ``nmod_mat``), else with Python integers and FLINT."""
    try:
        import numpy as np
    except ImportError:                                 # pragma: no cover - numpy is optional
        np = None
    if np is not None and len(X) and max(net.widths) < 2 ** 20:
        return _rank_mod_p_numpy(np, net, X, masks, p)
    return _rank_mod_p_python(net, X, masks, p)


def _rank_mod_p_numpy(np, net, X, masks, p: int) -> int:
    def arr(rows, shape):
        return np.array([residue(v, p) for r in rows for v in r], dtype=np.int64).reshape(shape)
    L, m, T, N = net.depth, net.n_outputs, len(X), net.n_parameters
    Ws = [arr(w.to_rows(), w.shape) for w in net.weights]
    bs = [arr([b], (len(b),)) for b in net.biases]
    Ms = [np.array(masks[l], dtype=np.int64).reshape(T, net.widths[l + 1]) for l in range(L - 1)]
    H = [arr(X, (T, net.n_inputs))]
    for l in range(L - 1):
        H.append((H[-1] @ Ws[l].T + bs[l]) % p * Ms[l])
    offsets, k = [], 0
    for W in Ws:
        offsets.append(k)
        k += W.shape[0] * W.shape[1] + W.shape[0]
    out = np.zeros((T, m, N), dtype=np.int64)
    for o in range(m):
        delta = np.zeros((T, m), dtype=np.int64)
        delta[:, o] = 1
        for l in range(L - 1, -1, -1):
            n_out, n_in = Ws[l].shape
            k = offsets[l]
            out[:, o, k:k + n_out * n_in] = (delta[:, :, None] * H[l][:, None, :]).reshape(T, -1) % p
            out[:, o, k + n_out * n_in:k + n_out * n_in + n_out] = delta
            if l:
                delta = (delta @ Ws[l]) % p * Ms[l - 1]
    if p < 1 << 20:                 # the float64 BLAS route (exact there): ~6x FLINT's nmod_mat here
        return rank_mod_p(out.reshape(T * m, N), p)
    return nmod_rank(T * m, N, out.reshape(-1).tolist(), p)


def _rank_mod_p_python(net, X, masks, p: int) -> int:
    Ws = [[[residue(v, p) for v in row] for row in w.to_rows()] for w in net.weights]
    bs = [[residue(v, p) for v in b] for b in net.biases]
    m = net.n_outputs
    rows = []
    for t, x in enumerate(X):
        hs = [[residue(v, p) for v in x]]
        for l in range(net.depth - 1):
            z = [(sum(a * c for a, c in zip(wr, hs[-1])) + bb) % p for wr, bb in zip(Ws[l], bs[l])]
            hs.append([v if mk else 0 for v, mk in zip(z, masks[l][t])])
        for o in range(m):
            delta = [1 if i == o else 0 for i in range(m)]
            blocks = []
            for l in range(net.depth - 1, -1, -1):
                hin = hs[l]
                blocks.append([dv * hv % p for dv in delta for hv in hin] + list(delta))
                if l:
                    back = [sum(delta[i] * Ws[l][i][k] for i in range(len(delta))) % p
                            for k in range(len(hin))]
                    delta = [v if mk else 0 for v, mk in zip(back, masks[l - 1][t])]
            for blk in reversed(blocks):
                rows.extend(blk)
    N = net.n_parameters
    return nmod_rank(len(X) * m, N, rows, p)
