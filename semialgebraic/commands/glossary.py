"""The glossary of ``netfibers explain TERM``: the terms the commands print, explained once.

One source: every entry's ``quote`` is copied verbatim from ``docs/math/`` (``source`` names the
file and result; ``tests/cli/test_explain.py`` checks that each quote still occurs
there, so a change of the reference breaks the test instead of leaving two texts).  ``plain`` is
the one-line reading for someone who trains networks.  The table lives in the package because
``docs/`` is not installed.
"""

from __future__ import annotations

__all__ = ["GLOSSARY", "ALIASES", "lookup", "term_line"]

_T = "three-layer-fibers"
_S = "skip-absorption"

# term: (plain reading, source (file, result), verbatim quote of docs/math/<file>.md)
GLOSSARY: dict[str, tuple[str, tuple[str, str], str]] = {
    "bottleneck": ("a network with two hidden layers whose first hidden layer is not wider than "
                   "its input (n1 <= d); the setting of the exact symmetry theory",
                   (_T, "§2"), "Bottleneck: n1 ≤ d."),
    "fiber": ("all parameter settings that compute exactly the same function as the given one",
              (_T, "§2"),
              "Fib(θ) := { θ' ∈ Θ : f_θ'(x) = f_θ(x) for all x ∈ ℝ^d }."),
    "symmetry": ("a change of the weights that never changes the function (e.g. permuting hidden "
                 "neurons)", (_T, "§2"),
                 "a transformation of Θ that does not change f_θ"),
    "generic": ("a 'typical' network: no coincidence such as a zero weight or two proportional "
                "neurons; the conditions G0-G8 are what netfibers checks exactly",
                (_T, "§2"), "outside a lower-dimensional semi-algebraic exceptional set."),
    "identifiable": ("the weights are determined by the function, up to the symmetries every "
                     "network has (permuting neurons, rescaling a neuron's in/out weights by "
                     "c > 0 and 1/c); `identify` decides it for one hidden layer (R41) and "
                     "for three-layer bottlenecks (R18); on other networks it can only show "
                     "'not identifiable', by a certified copy outside the orbit", (_T, "R18"),
                     "identifiable up to S1 + S2 (dim Fib = n1 + n2 and no further discrete "
                     "copies)"),
    "flip set": ("neurons of one hidden layer whose orientations can all be reversed, (w, b) -> "
                 "-(w, b), with the output bias adjusted, without changing the function: their "
                 "kink matrices v_i w_i^T sum to zero (σ(h) − σ(−h) = h); a discrete symmetry "
                 "beyond permutations and scalings", (_T, "R41"),
                 "(I4) a flip set S: (w_i, b_i) → −(w_i, b_i) on S, c + Σ_S v_i b_i"),
    "fiber dimension": ("how many independent directions the weights can move without changing "
                        "the function (number of parameters minus the functional dimension where "
                        "the Jacobian rank is locally constant; at most that elsewhere: a "
                        "first-layer neuron dead on R^d must keep zero weights, so netfibers then "
                        "gives an interval)",
                        (_T, "R22"), "FIBDIM: exact local fiber dimension by Jacobian rank, "
                                     "inputs sampled per activation pattern"),
    "functional dimension": ("how many of the parameters really matter: the number of parameters "
                             "minus the fiber dimension", (_T, "R37"),
                             "fd_D(θ) is the largest rank of the Jacobian rows of θ ↦ "
                             "(f_θ(x))_{x ∈ X} over finite sets X of differentiable inputs in D"),
    "linear region": ("a piece of input space on which every hidden neuron keeps its on/off "
                      "state, so the network is one affine map x -> J x + c there (also "
                      "'activation region'; adjacent regions with the same J and c form one "
                      "linear piece)", (_T, "§3.2"),
                      "f_θ is affine on each top-dimensional cell (linear region)."),
    "linear piece": ("adjacent linear regions on which the network is the same affine map "
                     "x -> J x + c, joined (what `regions` counts as linear pieces)", (_T, "§2"),
                     "a linear piece is a maximal union of adjacent closed linear regions on which "
                     "f_θ is the same affine map"),
    "G0": ("two hidden layers, and the first is not wider than the input", (_T, "§3.1"),
           "G0 | two hidden layers and n1 ≤ d (the setting itself; checked first)"),
    "G1": ("the first layer's weight matrix has full row rank", (_T, "§3.1"),
           "G1 | rank W1 = n1 (needs n1 ≤ d)"),
    "G2": ("no second-layer weight or bias is exactly zero", (_T, "§3.1"),
           "G2 | every entry of [W2 | b2] is non-zero"),
    "G3": ("every second-layer neuron is used by some output", (_T, "§3.1"),
           "G3 | every column V_j of W3 is non-zero"),
    "G4": ("no two first-layer neurons are copies of each other up to scale", (_T, "§3.1"),
           "G4 | no two rows of [W1 | b1] are proportional"),
    "G5": ("no two second-layer neurons are copies of each other up to scale", (_T, "§3.1"),
           "G5 | no two rows of [W2 | b2] are proportional"),
    "G6": ("the always-on (linear) second-layer neurons form a generic linear map Γ",
           (_T, "§3.1"), "G6 | rank Γ = min(n_L, n1, m) (generic linear block)"),
    "G7": ("every first-layer neuron is visible in the output", (_T, "§3.1"),
           "G7 | if there is no switching neuron, every column of Γ is non-zero (otherwise a "
           "first-layer neuron is invisible)"),
    "G8": ("every first-layer neuron that is not masked shows its kink somewhere", (_T, "§3.1"),
           "G8 | every first-layer neuron i that is not masked (R4) bends on some open cell of its "
           "facet F_i: on that cell the active non-dead rows S have Σ_{j∈S} V_j W2[j,i] ≠ 0"),
    "S1": ("permute the hidden neurons of a layer", (_T, "R8"),
           "S1: permutations of hidden neurons"),
    "S2": ("multiply a neuron's incoming weights and bias by c > 0 and its outgoing weights by 1/c",
           (_T, "R9"), "S2: positive rescaling of hidden neurons"),
    "S3": ("a dead second-layer neuron (never active) can have any outgoing weights, and its "
           "incoming weights can move as long as it stays dead", (_T, "R10"),
           "S3: dead second-layer neurons are free (row in the negative cone, output column "
           "arbitrary)"),
    "S4": ("the always-active (linear) second-layer neurons only matter through the product Γ; "
           "refactor it freely", (_T, "R11"), "S4: refactorization of the block of linear neurons"),
    "S5": ("flip a switching neuron's orientation and compensate with linear neurons",
           (_T, "R12"), "S5: orientation flip of a switching neuron, absorbed by linear neurons"),
    "S6": ("shift the masked first-layer neuron's bias along an interval", (_T, "R13"),
           "S6: translation of the masked neuron along an interval"),
    "S7": ("with a masked first-layer neuron and a single live second-layer neuron (or several "
           "with equal weight ratios), first-layer neurons can flip sign",
           (_T, "R14"), "S7: sign flips of first-layer neurons when a single second-layer "
                        "neuron is non-dead"),
    "S8": ("with one first-layer neuron whose live second-layer neurons all have rows (- | +), "
           "its kink and the last second-layer kink can swap", (_T, "R15"),
           "S8: kink swap for n1 = 1"),
    "dead": ("a neuron that is off for every input of the domain (any hidden layer: `dim`, "
             "`plot` and `identify` say 'dead neuron (l, i)'; the three-layer theory's types are "
             "of its second-layer neurons, on the image of the first layer)", (_T, "§3.3"),
             "W2_j z + b2_j ≤ b2_j < 0: the neuron is identically 0"),
    "linear": ("a neuron that is on for every input of the domain, so it acts as a plain "
               "affine unit (any hidden layer; the three-layer theory's type is of its "
               "second-layer neurons)", (_T, "§3.3"), "W2_j z + b2_j ≥ b2_j > 0: the neuron is the affine map "
                                     "z ↦ W2_j z + b2_j"),
    "switching": ("a second-layer neuron that is on for some inputs and off for others: it "
                  "creates a genuine kink", (_T, "§3.3"), "a genuine kink"),
    "masked": ("a first-layer neuron whose kink never shows in the output (every neuron reading "
               "it hides it)", (_T, "§3.4"),
               "First-layer neuron i is masked if H_i is hidden everywhere"),
    "Gamma": ("Γ, the linear map carried by the always-on (linear) second-layer neurons",
              (_T, "§2"), "Γ := W3[:, L] W2[L, :] = Σ_{j∈L} V_j W2_j ∈ ℝ^{m×n1},"),
    "kappa+": ("κ₊(Γ), the fewest linear neurons (with positive weights) that can carry Γ",
               (_T, "§3.5"), "κ₊(Γ) := min{ k : Γ = V W with V ∈ ℝ^{m×k}, W ∈ ℝ^{k×n1}, "
                             "every entry of W > 0 },"),
    "kink": ("the hyperplane where a ReLU neuron switches on or off, where the network's slope "
             "changes; a kink vector or matrix is the change of slope across it",
             (_T, "R3"), "dead neurons vanish on the image of f1, linear neurons act affinely "
                         "on it, switching neurons have a kink inside it."),
    "orbit": ("all parameters reached from the network by permuting hidden neurons and "
              "rescaling them by positive factors (S1 + S2); identifiable means the fiber is one "
              "orbit", (_T, "R18"), "S1 + S2 orbit"),
    "component": ("a connected piece of the fiber (the fiber can consist of several pieces, "
                  "e.g. copies that differ by a flip set or a permutation)", (_T, "§2"),
                  "Component of a fiber: a connected component of Fib(θ) as a subset of Θ = ℝ^N"),
    "non-generic": ("a network on the exceptional set where a genericity condition fails (a zero "
                    "weight, two proportional rows, ...): the theorems' fast paths do not apply, "
                    "so netfibers answers with bounds, a general method or 'undecided'",
                    (_T, "§2"), "a non-generic boundary point"),
    "unread": ("a hidden neuron whose outgoing weights are all zero: nothing reads it, so its "
               "incoming weights and bias are free", (_T, "R40"),
               "unread* neurons, W_{l+1}[:, i] = 0,"),
    "split": ("neurons of one layer whose rows and biases are positive multiples of each other: "
              "one neuron split in several, whose outgoing weights can be traded", (_T, "R40"),
              "split* groups of hidden layer l whose rows and biases are positive multiples of the "
              "first's"),
    "absorbable": ("the block with its skip connection equals a block of the same width without "
                   "one (a ReLU block with biases: one with biases b'_up, b'_down, R19; the "
                   "certificate's competitor says which)", (_S, "R1"),
                   "Absorbable = exactly equal on all of ℝ^d to a residual-free block of the same "
                   "width and activation, no biases"),
}

ALIASES = {"Γ": "Gamma", "gamma": "Gamma", "κ₊": "kappa+", "kappa": "kappa+", "κ+": "kappa+",
           "region": "linear region", "regions": "linear region",
           "activation region": "linear region",
           "fibre": "fiber", "identifiability": "identifiable", "symmetries": "symmetry",
           "absorption": "absorbable", "fibdim": "fiber dimension", "kinks": "kink",
           "orbits": "orbit", "components": "component", "nongeneric": "non-generic",
           "non generic": "non-generic", "split neuron": "split"}


def lookup(term: str) -> str | None:
    """The glossary key of *term* (case-insensitive, aliases, ``G1``/``g1``), or None."""
    t = " ".join(term.strip().split())
    if t in GLOSSARY:
        return t
    if t in ALIASES:
        return ALIASES[t]
    low = t.lower().replace("-", " ").replace("_", " ")
    for key in GLOSSARY:
        if key.lower() == low:
            return key
    for alias, key in ALIASES.items():
        if alias.lower() == low:
            return key
    return None


def term_line(key: str) -> str:
    """``"S3: plain reading"`` (one line, for lists and for the explanations in ``analyze``)."""
    return f"{key}: {GLOSSARY[key][0]}"
