"""Benchmark of the general exact methods.  Run by hand: ``python benchmarks/bench_general.py``.

1. Exact equivalence (``semialgebraic.equivalence.equivalent(method="general")``, certificate and
   its verification included) against a z3 encoding of ∃x: a(x) ≠ b(x) (ReLU as ``If`` terms
   over exact reals, same domain, only ``s.check()`` timed, fresh solver per run, z3 timeout),
   on pairs of small networks (d <= 4, <= 40 ReLUs per network); best of 3 runs for runs under
   0.5 s (both tools; shared machine).  Pair kinds: ``equivalent`` (permuted and rescaled copy),
   ``perturbed`` (one parameter + 1/1000; equivalent when the parameter never matters),
   ``passthru[-1,1]`` (a followed by an always-active identity layer relu(y + c) - c),
   ``identity-layer`` (relu(h) - relu(-h) inserted after the first hidden layer, on R^d),
   ``split[-1,1]`` (an always-active first layer relu(M x + c), a's first layer composed with
   M^-1), ``dead[-1,1]`` (copy plus two neurons dead on the box), ``tiny-diff[-1,1]`` (a plus a
   neuron alive on a slab of width 1e-6: inequivalent).  Prints both times, the ratio, whether
   the answers agree, the median ratio per kind and overall (pairs z3 decided).
   Measured 2026-11-30 12:20-13:48 UTC, 2 shared cores, load ~0.7-1.8,
   ``--skip-dim --z3-timeout 30``, five runs: median 14.1x, 16.0x, 13.4x, 12.2x and 13.4x over the 31
   pairs z3 decided (3 more z3 timeouts at 30 s, ours 6-12 ms).  Per kind (median, min), 16.0x
   run: equivalent 973x (34x), identity-layer 69x (31x), split 251x (4.9x), dead 155x (2.9x),
   passthru 4.8x (2.0x), perturbed 0.9x (0.0x), tiny-diff 0.5x (0.5x).  Every collapsing pair
   takes 4-12 ms in all and walks no region ("regions" 0: the reduced difference has no live
   neuron, so it is the constant map x -> its output bias, checked to be zero; ``region_cover``
   certificate with ``"regions": []``).  Refuted pairs: 1-3 ms in the first three runs, 0.4-1 ms
   in the last two (the counterexample is no longer re-read from JSON inside the decision: a(x) !=
   b(x) is re-evaluated exactly and x checked to lie in the domain), where z3 answers sat in
   1-3 ms (0.8-5.4x).  The pair that needs a proof of never-firing neurons (2-6-6-6-1
   perturbed, equivalent) 0.12-0.13 s (dead_cover over 21 regions) against z3 0.06-0.11 s.
   An earlier version of the code (same script, 10:54 UTC, load ~2.4-2.9): median 9.4x (other
   runs 12.4x, 9.1x), collapsing pairs 6-27 ms with one region walked.  Earlier (original three
   kinds only, load ~0.6): passthru 0.5-4.0 s with 31-234 regions (0.0-0.1x), perturbed 0.01 s
   (0.4-8x), median 6.4x.
2. Exact functional dimension of 8-32-32-32-1 and 4-32-32-1 networks (target <= 10 s): normal-like
   weights with small biases (``normal_net``), nets whose every neuron switches on the reachable
   set (``switching_net``: each bias puts the kink at the image of a random anchor input), and
   the integer/8 weights of ``random_net`` (exact zeros, large biases: silent and dead neurons).
   Measured 2026-11-30 11:20 UTC (2 shared cores, load ~1.3-1.6; default budgets, no timeout),
   N - #hidden = 2337 / 1185: 8-32-32-32-1 normal seeds 2, 4 exact 2337 in 2.5 / 4.0 s;
   switching seeds 1-3 exact 2337 in 2.4-2.7 s; normal seeds 1, 3, 6 stop at 2334 / 2336 / 2333
   <= fd <= 2337 in 5-5.6 s, each gap a weight W3[i,k] whose two neurons were never seen active
   together (the mod-p kernel names them: W3[22,3], W3[22,8], W3[22,20]; W3[21,25]; W3[4,2],
   W3[4,13], W3[4,28], W3[4,30]); seed 5 2292 <= fd <= 2337 in 14.7 s (a rarely active layer-2
   neuron, (2, 29)).  The exact phase search that would prove those weights never exercised
   (:func:`exercise`) does not finish there (layer-1/2 patterns in R^8; seed 3 with timeout=120
   still open); it does on small nets, and 4-32-32-1 normal seed 1 becomes exact 1184 with
   ``timeout=60`` (W2[12,27] proven never exercised, ~9500 exact LPs, 31 s).  An earlier
   version of the code (same seeds, load ~5): seed 2 exact in 7.6 s, seeds 1 / 3 at 2334 / 2332
   in 13 / 11.5 s, seeds 4 / 5 / 6 at 2307 / 2277 / 2334 in 60-77 s (walks uncapped, three full modular
   eliminations).  4-32-32-1 normal: 1184, 1171, 1174 <= fd <= 1185 in 2-4.6 s; int/8 nets:
   4-32-32-1 1056 <= fd <= 1089 (6.3 s), 8-32-32-32-1 2225 <= fd <= 2241 (10.9 s).
   Issue 15 (``dim``) rows, ``--dim-targets``, measured 2026-12-02 04:31-04:50 UTC with the
   machine at load 14-20 (2 cores shared by 8 developers: wall times inflated ~7x, CPU seconds
   given too), default work budgets, no timeout: 8-32-32-32-1 normal seed 1: 2336 <= fd <= 2337
   (31.3 s CPU, 220 s wall; was 2334), missing W3[22,8]; seed 3: 2336 <= fd <= 2337 (21.8 s
   CPU), missing W3[21,25]; seed 5: 2288 <= fd <= 2337 (33.4 s CPU), missing W2[29,·] (the
   incoming weights of the rarely active neuron (2, 29), which is now found by a witness);
   seed 6: 2334 <= fd <= 2337 (60.1 s CPU, not profiled further).
   Each open gap is a weight W_l[i,k] whose two neurons are never seen active together in
   ~400k float samples: the branch-and-bound emptiness proof (:mod:`semialgebraic.bab.emptiness`)
   does not close within its node budget (the symbolic / LP root bound of the deeper rare neuron
   over the homogenised box is ~10^2 against a sampled maximum ~1: seed 1's pair (2,3)/(3,22)
   still has upper bound 14.8 after 300 splits), so neither bound moves.  ACAS Xu 5-50x6-5
   (N = 13 305) with ``timeout=60``: 304 <= fd <= 13 005, 75 points in 3 batches (rows ranked
   mod p only, batches doubling, each fitted to a quarter of the timeout), returned after 60.0 s
   wall (limit 1.05 T + 2 = 65 s; 9.3 s CPU, 05:09 UTC).
   Re-measured 2026-12-02 07:18-07:40 UTC (load 8-16; suspects now decided neurons first, and
   an exact witness of a rarely met sign set spread into inputs of that set; measured with 48
   inputs per witness, the committed setting is 16 for the first 4 witnesses, seed 5 re-measured
   with it: [2290, 2337], 34.2 s CPU): seed 1 [2336, 2337] (29.0 s CPU), seed 3 [2336, 2337]
   (20.2 s), seed 5 [2290, 2337] (34.3 s), seed 6 [2334, 2337] (71.3 s).  Which side is wrong (float evidence, 2-4M samples at scales 10^-2..10^3
   per pair, max of min(z_a, z_c)/(1 + |x|)): every open pair is never co-active in the samples
   (seed 1 (2,8)/(3,22): best -0.46, (3,22) active in 0.1 %; seed 3 (2,25)/(3,21): -0.06; seed 6
   (2,2), (2,13), (2,30) with (3,4): -0.37, -0.57, -0.37, (3,4) active in 0.01 %); a float MILP
   (HiGHS, seed 1, 60 s) found no co-active point either (unfinished, dual bound 5.8).  So the
   truth is most likely the lower side
   (2336, 2336, 2334), the missing piece an upper-bound proof the branch and bound does not find
   (root bound ~15-24 after 100-300 splits, input splits included).  Seed 5 is not sampling
   starvation either: (2, 29) is active only on a bounded set near the origin (|x|_inf 0.08-0.13,
   found by the witness walk), where 11 layer-1 neurons are never on (W2[29,k] for those k appear
   as single-weight kernel directions), 8 layer-3 neurons never on and 15 always on: the true
   value is well below 2337 and the missing pieces are again never-co-active proofs (the branch
   and bound leaves (1,1)/(2,29) undecided after 300 splits).  ACAS Xu: the certificate builder's
   direction ranks (300 x 13 305, long rationals) took > 10 min exactly over Q; now mod the
   certificate's prime by sparse echelon form (decider and checker), 4.2 s CPU; ``netfibers dim
   ACAS --timeout 60 --certificate c.json``: 187 <= fd <= 13 005 certified (48 points), 38.8 s
   wall in the command (12.6 s CPU), certificate 12.6 s wall (4.2 s CPU); ``--dim-targets`` row:
   [187, 13 005] in 61.2 s wall (limit 65 s, 7.3 s CPU).  13 005 = N - 300 is already the
   generic bound (three-layer-fibers R9 scalings, one per hidden neuron).
   Re-measured 2026-12-02 10:26-10:38 UTC (load 10-13, ``--dim-seeds 1,3,5,6``; default work
   budgets): seed 1 [2336, 2337] 22.1 s CPU (107 s wall), seed 3 [2336, 2337] 18.3 s (86 s),
   seed 5 [2290, 2337] 27.0 s (131 s), seed 6 [2334, 2337] 42.5 s (207 s): not exact.  The
   undecided emptiness questions now report the certified bound their search reached (seed 1:
   (2, 8)/(3, 22) max G <= 8.42 after 48 splits; seed 3: (2, 25)/(3, 21) <= 7.46).  Why no
   proof closes (measured the same morning, floats as evidence only): a float MILP (HiGHS via
   scipy ``milp``, big-M from interval bounds and one round of LP bound tightening, the
   homogenised box, ~40 s wall each) leaves dual bounds 6.7 (seed 1, 12 874 nodes, 27 s CPU),
   7.8 (seed 3), 13.3 / 13.5 (seed 6, (2, 2) and (2, 13) with (3, 4)) and 0.57 / 1.0-1.7 (seed
   5, (1, k)/(2, 29)), never finds a co-active point (incumbent 0), so an exact search at
   0.03-0.08 s CPU per node has no chance within 30 s; the cross-section of the homogenised
   cone (faces tau = 1 and x_k = +-1, which avoid the origin where G = 0 is attained) with 100
   exact splits per face leaves bounds 7.8-21 on seed 1's pair, and on 21 never-co-active pairs
   of 3-10-10-10-1 nets it decides fewer questions than the whole box at the same node count (2
   against 7), so it was not adopted; input splitting alone (float symbolic intervals, face tau
   = 1 of seed 1's pair) needs more than 300 000 boxes; seed 5 split into a tail ("(2, 29)
   never active where |x|_inf >= 1/4": 1 of 16 faces closes in 100 splits, bounds 1.3-3.5 on the
   others) and a body (the pairs on [-1/4, 1/4]^8: bounds 0.48-0.57 after 100 splits).
   Under a timeout the inputs spread from each suspect witness now scale with the timeout's
   value (a count of work, :meth:`_Sandwich.spread_count`; default runs unchanged, 16):
   ``functional_dimension(net, timeout=600)`` 10:53-10:56 UTC (load 12-14): seed 5 [2293, 2337]
   (7 613 points, 31.5 s CPU, 167 s wall; 1 024 inputs per witness gave 2294, 35.6 s CPU),
   seed 1 [2336, 2337] (14 384 points, 35.2 s CPU: the extra inputs cost ~10 s and add nothing).
   Conditioned bound tightening (2026-12-02 afternoon, :func:`semialgebraic.bab.emptiness.
   decide_conditioned`, now tried on every question the branch and bound leaves open): add the
   target signs as constraints (z_a >= 0, z_c >= 0), tighten every unstable interval over that
   relaxation, round after round, on each face of the homogenised box (tau = 1, x_k = +-1: every
   ray meets one; on the whole box the origin satisfies the constraints), until an interval or
   the LP is empty; certified step by step (exact Neumaier-Shcherbina multipliers, replayed by
   the checker).  It proves never-co-active pairs the root bound leaves open on small nets
   (3-10-10-10-1 ``normal_net`` seeds 1-7, the 43 adjacent-layer pairs never co-active in 10^5
   float samples: the branch and bound alone, 48 splits, finds a witness for 13 and leaves 30
   open; the conditioned pass proves 21 of those 30, 0.05-2.6 s CPU each at load ~12, and gives
   no proof where a witness exists), not the open pairs of these four seeds.  Float evidence
   (``--dim-obbt 5,1,3,6``, 6 rounds per face, 13:19-13:35 UTC, load 5-9): seed 5 (1, 1)/(2, 29)
   14 of 17 faces empty (3.3 s CPU; open: tau = 1 with max z_a 2.89, z_c 9.56, 31 neurons still
   unstable, and x_0 = +1, x_3 = +1, which close with 20 rounds); seeds 1, 3, 6 (all five open
   pairs): 0 of 17 faces (1 of 17 for seed 6's (2, 2)/(3, 4)), 63 of 64 neurons still unstable,
   max z_a 12-48 and z_c 38-165 on the faces (31-32 s CPU per pair).  Bisecting seed 1's tau = 1
   face (2 rounds per box) closes boxes only at depth ~10 (60 boxes: 0.14 % of the volume); the
   sign patterns of layers 1-2 among the sampled inputs where (3, 22) is active are almost all
   distinct (2 013 of 2 069 for seed 1; 82 163 of 167 916 for seed 3's (3, 21)), so an exact walk
   of {z_c >= 0} is no shortcut either.  Seed 5's pairs close on more pieces with a finer cover
   (faces x_k = +-1 with tau in [0, 8] and the cube |x| <= 1/8 at tau = 1: 15 of 17 for (1, 1),
   11 of 17 for (1, 2), 20 rounds) but not on all.  ``--dim-seeds 1,3,5,6`` with the
   conditioned pass (13:44-13:56 UTC, load 12-17): seed 1 [2336, 2337] 22.1 s CPU, seed 3
   [2336, 2337] 16.1 s, seed 5 [2290, 2337] 25.5 s, seed 6 [2334, 2337] 44.0 s; without it
   (13:18-13:27 UTC, load 6-9): 20.4, 18.4, 25.3, 38.6 s CPU, the same intervals.  The
   conditioned pass costs 0.2-0.9 s CPU per open question here (its float pass stops when a
   round makes no neuron stable and cuts the unstable widths by < 5 %).
   Neuron splits in the conditioned pass (2026-12-02 16:00-17:30 UTC, load 6-11 throughout: CPU
   seconds are the figures).  Float evidence first (``--dim-milp``: HiGHS MILP, one thread,
   ``mip_rel_gap = 0``, big-M from interval bounds plus two rounds of conditioned float OBBT,
   ``z_a >= 0``, ``z_c >= 0`` as bounds; nothing decides): seed 1's (2, 8)/(3, 22) on the whole
   homogenised box closes at zero margin (max min(z_a, z_c) = 0, attained at the origin) after
   41 149 nodes, 75 s CPU (an equivalent scratch script, 600 s limit); on the face tau = 1 it is
   infeasible after 10 926 nodes (20.4 s CPU); no co-active point in either, so the lower side
   2336 is the truth (in floats) and an exact proof must do the work of ~10^4 MILP nodes per
   face of the 17.  Seed 3's (2, 25)/(3, 21), face tau = 1: unfinished after 300 s wall (31.8 s
   CPU at load ~9), 12 659 nodes, dual bound 6.0, no point.  Seed 6's (2, 2)/(3, 4), tau = 1:
   infeasible after 9 448 nodes (20.4 s CPU).  Seed 5's (1, 1)/(2, 29), tau = 1:
   infeasible after 1 127 nodes (1.0 s CPU).  A float prototype of the search (conditioned OBBT
   at every node, 1-2 rounds, depth first): splitting the unstable neuron with the widest
   triangle closes all 17 faces of seed 5's pair (tau = 1: 69 nodes, 4.7 s CPU; the faces x_k =
   +-1: 3-7 nodes each), bisecting the input coordinates of the face does not (tau = 1: 400
   nodes, 200 closed, 33.7 s CPU, open); on seed 1's face tau = 1 the neuron splits reach depth
   19 without closing a node (0.37 s CPU per node in floats).  The winner, made exact
   (:func:`semialgebraic.bab.emptiness.decide_conditioned` with ``splits``: a tree per face,
   halves ``z <= 0`` / ``z >= 0``, each node's tightening certified as before, the checker
   replaying the tree), ``--dim-split 5``: seed 5's (1, 1)/(2, 29) proved never co-active, 8
   splits on tau = 1 (17 nodes), none on the other 16 faces, ~13 400 LPs (7 400 float, 6 000
   exact), 27 s CPU (22 s of it the exact certificates, ~3.7 ms per exact LP), checked in 4.4 s
   CPU (``--dim-split 5`` at 16:57 UTC, load ~11: 13 394 LPs, 30.2 s CPU, check 5.6 s).  The exact
   pass then stopped rounding a step's duals at the first candidate as good as HiGHS's value:
   ``--dim-split 5`` 17:12 UTC (load ~11): the same tree and 13 394 LPs, 19.4 s CPU (exact part
   22 -> 14 s), check 4.1 s CPU.  Seed 5's other open pairs with the split search (``splits=200,
   lps=20000``, load ~11): (1, 2)/(2, 29) proved, 22 503 LPs, 54.7 s CPU; (1, 4)/(2, 29) proved,
   21 197 LPs, 47.6 s (both before that change); (1, 5)/(2, 29) proved, 10 999 LPs, 17.6 s.  It is not in the ``dim`` defaults (``CONDITIONED_SPLITS = 0``): seed 5 has >= 11 such
   open pairs ((1, k)/(2, 29), then layer-3 ones) at ~27 s each, and on seeds 1, 3, 6 the float
   tree does not close within hundreds of splits (the MILP's ~10^4 nodes per face), so the 30 s
   target stays out of reach this way: the obstacle is the number of nodes (a relaxation that is
   too weak on these pairs: the triangle relaxation with single-neuron splits), not the cost per
   node.
   Seed 3 was the other side (2026-12-03): its pair (2, 25)/(3, 21) *is* co-active, on a sliver
   near the origin (|x|_inf ~ 0.09) where min(z_a, z_c) reaches only 0.0035, which 4M float
   samples (best -0.06) and the MILP (unfinished) missed.  A float walk over linear regions (one
   LP per region: max of the smaller target form; best-first across the facets of each optimum;
   :mod:`semialgebraic.bab.signwalk`, now run by ``decide_empty`` before the branch and bound,
   400 LPs per question, ~0.5 s CPU) finds it after 200-250 LPs; the witness is checked exactly
   and spread into inputs, and seed 3 is exact 2337.  ``--dim-seeds 1,3,5,6`` before (05:31-05:37
   UTC, load 2.3-9.9): seed 1 [2336, 2337] 42.0 s wall / 20.5 s CPU, seed 3 [2336, 2337]
   31.8 / 15.4, seed 5 [2290, 2337] 79.8 / 25.1, seed 6 [2334, 2337] 190.1 / 39.5; after (05:40-05:47
   UTC, load 7.4-7.7): seed 3 exact 2337 in 28.8 s wall / 12.5 s CPU (``netfibers dim
   --certificate``: 86.8 s wall / 34.0 s CPU with the certificate, ``netfibers verify`` VALID, exact
   2337, 33.5 s wall / 13.1 s CPU), seeds 1 / 5 / 6 unchanged intervals in 71.5 / 81.5 / 95.0 s
   wall, 23.1 / 29.2 / 28.6 s CPU.  The same walk on seeds 1 and 6 finds nothing (400 and 1 500 LPs,
   2.5 s CPU), a randomised variant (scratch) stalls at min(z_a, z_c) = -0.40 (seed 1) and -0.23
   / -0.21 / -0.18 (seed 6's three pairs): the lower side is their truth in floats (2336, 2334;
   the MILP agrees for seed 1), and the exact proof is the open part.  Seed 6's other two pairs by
   the MILP on the whole homogenised box (``dim_milp(6, "box", 400, pair)``, 05:52-06:02 UTC, load
   6-9): (2, 13)/(3, 4) optimal 3.4e-12 (36 868 nodes, 55.4 s CPU), (2, 30)/(3, 4) optimal 1e-6
   (24 293 nodes, 30.6 s CPU) at x ~ 1e-13, tau ~ 5e-12, the origin within the tolerance (at
   x/tau exactly: z_c = -7.6): neither has a co-active point, so 2334 for seed 6 in floats.  On seed 5 it finds (1, k) co-active with (2, 29) for 22 of the 32 layer-1
   neurons in 0.03-0.1 s each and none of k = 1, 2, 4, 5, 12, 16, 17, 19, 22, 25 (1 500 LPs):
   those ten are the never-co-active candidates (each an exact proof of ~20-50 s CPU with
   ``--dim-split``).  Seed 5's suspects stopped after 4 of their 66 questions (the 1 000 exact
   LPs of the phase searches spent), so the walk never saw the other 22 pairs; now every question
   left unasked gets the walk alone (``SUSPECT_WALK_LPS = 6000`` in all): seed 5 [2296, 2337],
   its missing directions then exactly those ten weights W2[29, k].  ``--dim-seeds 1,3,5,6``
   06:17-06:22 UTC (load 8.3-9.8): seed 1 [2336, 2337] 48.8 s wall / 24.2 s CPU, seed 3 exact 2337
   30.1 / 12.5, seed 5 [2296, 2337] 94.5 / 38.6 (the walks of the ten never-co-active pairs cost
   ~5 s CPU of it), seed 6 [2334, 2337] 65.2 / 29.5.
   Pairs sharing their deeper neuron proved by one tree (2026-12-03,
   :func:`semialgebraic.bab.emptiness.decide_shared`, run by ``prove_suspects`` on the open groups
   of >= 2 pairs): conditioned on the deeper target alone (z_c >= 0; the shallow neurons not
   clipped), a leaf closes when empty or when every shallow neuron of the group is <= 0 there
   (each pair's proof the same tree with ``{"sign": [t1, j]}`` ends, ``"deeper_only"``).  Seed 5's
   ten (1, k)/(2, 29) in one tree: 16 of 17 faces close unsplit, tau = 1 with 33 splits (67
   nodes); 25 700 LPs, 34-36 s CPU (88-92 s wall, load ~8) against ~20-55 s CPU per pair with
   ``--dim-split``; each pair's proof 11.9 MB of JSON, checked in ~8 s CPU.  Pure input splitting
   with float CROWN bounds (either neuron's bound < 0, or a convex combination of both linear
   bounds < 0 over the box, scratch) does not close tau = 1 for seed 1 or 5 within 20 000 boxes
   per face.  Seed 6's three pairs with (3, 4): every piece stays open unsplit (390 LPs each), so
   the group stops after 4 pieces (``SHARED_OPEN_SHARE``).  ``--dim-seeds 1,3,5,6`` 09:00-09:10
   UTC (load 7.5-10): seed 1 [2336, 2337] 72.3 s wall / 22.1 s CPU, seed 3 exact 2337 27.7 / 9.3,
   seed 5 [2296, 2327] 272.6 / 93.0; with the stop, ``--dim-seeds 6,5`` 09:13-09:20 UTC (load
   5-9): seed 6 [2334, 2337] 75.4 / 31.1 (56.7 s CPU before the stop), seed 5 [2296, 2327]
   141.4 / 81.1.  Seed 5's remaining upper directions are weights W3[i, 29] out of (2, 29) (ten
   deficit lines, pairs of them), its lower side 2296 unchanged.
   Seed 5's certificate (``functional_dimension_certificate(net, fd)``, then ``json.dumps`` and
   ``verify``; 2026-12-03, load 2-7, wall / CPU s): before, the ten pairs' proofs were the same
   11.9 MB tree written ten times: 119.8 MB, built in 384.6 / 138.9 s (the builder's checker
   calls replayed each copy), checked in 141.1 / 67.3 s (10:56-11:08 UTC).  With the table of
   shared proofs (``shared_proofs``: the tree once, each pair's ``free`` entry a reference to it,
   replayed once per check): 13.1 MB (11.9 MB of it the tree: 55 nodes, 10 525 tightening steps
   of ~100 multipliers each, 53 % of them 0, the others fractions of denominator up to 10^9),
   built in 80.1 / 21.9 s, checked in 53.4 / 21.2 s (11:09-11:17 UTC).  The tree's size is its
   count of steps: accepting the short 10^-6 roundings of the duals when within 10^-4 (10^-2) of
   the interval's width of HiGHS's value (scratch, not kept) gave 11.09 (11.07) MB, the projected
   roundings being mostly farther off; a sparse form of the multipliers would save at most the
   zeros' ~1.1 MB.
   The mirror (:func:`semialgebraic.bab.emptiness.decide_shared_shallow`, run by
   ``prove_suspects`` after the deeper groups, 2026-12-03 11:51-11:55 UTC, load 4.6-6): one tree
   conditioned on (2, 29) >= 0 alone, the layer-3 neurons as outputs.  Float guesses alone
   (``_pair_candidates``, checked exactly; 4.3 s CPU for all 32) find (2, 29) co-active with 24
   of the 32 layer-3 neurons (3, k), k = 0-7, 10-13, 15-17, 20-24, 26-28, 31 (as in
   ``W3[k, 29]``): the ten deficit lines (``W3[0,29]+W3[2,29]``, ... pairs of those weights, and in-neuron
   directions of (3, 5)) are then a *lower*-side question (inputs where (2, 29) is active and the
   two layer-3 neurons differ), which no emptiness tree closes.  On the 8 without a witness
   (k = 8, 9, 14, 18, 19, 25, 29, 30) the mirror's float trees close the 16 faces x_k = +-1
   unsplit (13 500 LPs), tau = 1 stays open after 6 460 LPs and 14 splits (20 000 LPs, 30.0 s CPU,
   72 s wall); all 32: tau = 1 open after 1 708 LPs (42.5 s CPU).  In ``dim`` the mirror pass
   does not run on seed 5 (the deeper group spent the 24 000 shared LPs): ``--dim-seeds 5``
   before / after 11:40-11:48 UTC (load 6.3-7): [2296, 2327] 207.0 / 59.5 s and 158.1 / 64.9 s
   (wall / CPU); ``--dim-seeds 1,6`` 12:00-12:03 UTC (load 3.8-4.2) after / before: seed 1 [2336,
   2337] 21.0 / 23.1 s CPU, seed 6 [2334, 2337] 31.5 / 30.3 s CPU.  Keeping the exact witnesses
   of the 24 co-active pairs (scratch) left the lower bound at 2296 (same 6 281 inputs, +9 s CPU):
   not kept.  Float evidence (12:04 UTC): at 402 float points with (2, 29) active (the guesses
   above, perturbed), (3, 0), (3, 2), (3, 3), (3, 4), (3, 5) are always all active (7 layer-3
   patterns in all), so those weights' columns are proportional there: each line would need
   "(2, 29) active and (3, a) inactive never together" (the mirror with ``s2 = -1``) plus an
   upper-direction kind for it; that mirror on a = 0, 2, 3, 4, 5 does not close in floats within
   20 000 LPs (34.0 s CPU, 64 s wall).
   Fixed successors (2026-12-03 13:40-14:20 UTC, ``fixed_successors`` entries: a rare neuron
   whose successors have fixed signs wherever it is active; the checker's docstring has the
   argument).  Checked first in floats: 667 677 inputs perturbed (scales 10^-3..3·10^-2) around
   41 region-walk witnesses of (2, 29) active: 52 distinct layer-3 patterns there; 15 layer-3
   neurons always on (k = 0, 2-6, 12, 13, 15, 20, 22, 24, 26, 27, 31), 8 never on (8, 9, 14,
   18, 19, 25, 29, 30) and 9 switching (1, 7, 10, 11, 16, 17, 21, 23, 28).  So the pattern is
   *not* fixed on (2, 29)'s active set; the 23 fixed ones give at most 14 + 8 = 22 directions in
   W3[·, 29] (the missing list also holds in-neuron directions of (3, 5)).  ``dim`` finds those
   23 signs (spread inputs, then a 200-LP region walk per successor that finds no other sign);
   their one ``decide_shared_shallow`` tree stays open on the face tau = 1: 20 000 LPs, 37 s CPU
   inside ``dim`` (``--dim-seeds 5`` 13:51-13:57 UTC, load ~6: [2296, 2327] 228.8 / 100.8 s
   wall / CPU, was 59.5-64.9 s CPU) and 60 000 LPs alone (137 s CPU, 430 s wall, load ~6), so
   its share is ``SUSPECT_FIXED_LPS = 6000``.  Keeping the spread inputs of the active set as
   rows (scratch) left seed 5's lower bound at 2296 (8 747 inputs) and slowed seed 3 from 10.7
   to 18.7 s CPU (4 944 -> 11 577 inputs); keeping only the walks' witnesses of another sign, 11.3 -> 14.4 s
   (5 169 inputs): neither kept (seed 3 with the pass and no rows added: see the README row).
   The budget used to its end on ACAS Xu (2026-12-04, session 21): above ``RANK_ONLY`` the rows
   are ranked in a :class:`algebra.linalg.gfp.BlockSpan` (moved from ``algebra/conservation``;
   new rows reduced by groups of 16 echelon blocks (8 since), one product of inner dimension
   <= 1 024 each, the whole array reduced every 8 groups: 1 000 random rows of 13 305 columns added to
   a span of rank 1 000 / 2 000: 19.5 / 37.6 s before, 6.6-7.7 / 9.6-12.1 s after, loads 1-5;
   the elimination of the new rows themselves, ~3-7 s, is unchanged) that the budget stops
   between panels, each batch fitted to the time left from the last round's cost; with a
   timeout the time after the walk goes 0.3 to sampling, up to 0.6 to the neurons never seen
   active (``prove_suspects``, which now keeps what it decided when its budget runs out) and
   the rest to sampling.  ``netfibers dim ACAS.nnet --box file --timeout T`` (wall after the
   start-up mark, interleaved runs, 12:58-13:04 UTC, load 4-6; before = commit 9c93c8a):
   T = 20: before [145, 12 950] in 3.7 s (48 points), after [605, 12 950] in 21.2 s (229);
   T = 60: before [215, 12 950] in 8.8 s (75), after [982, 12 950] in 62.5 s (361);
   T = 120: before [316, 12 950] in 14.9 s (112), after [3 025, 12 455] in 120.3 s (1 238;
   six neurons proven dead, each freeing its incoming parameters: 12 950 -> 12 455); limits
   23 / 65 / 128 s.  Other runs of the same code at other loads: T = 60 [397, 12 601] and
   [2 266, 12 950], T = 120 [4 866, 12 455] (the number of batches follows the machine's
   speed).  Interleaved again with the final code (13:36-13:41 UTC, load ~2): T = 20 before
   [145, 12 950] in 2.1 s, after [811, 12 455] in 20.4 s (304 points); T = 60 before [215,
   12 950] in 6.3 s, after [2 617, 12 455] in 59.9 s (1 060); T = 120 before [316, 12 950] in
   6.3 s, after [5 765, 12 455] in 120.3 s (2 485).  With ``--certificate`` (sampling keeps 3x its elimination time for the
   certificate's unstoppable rank calls and skips the neuron phase: the certificate builder
   would search the proofs again, 25 s of 30 in a trial): T = 60 before [194, 12 950] in
   19.7 s, after [1 108, 12 950] in 49.6 s, ``netfibers verify`` VALID (upper certified too).
   Ctrl-C at 12 s / 30 s of ``--timeout 60``: exit 3 within 0.1 s, [663, 12 950] / [1 335,
   12 950].  With ``--certificate`` again (2026-12-04, session 22, load ~1.2): the checker ranks
   the rows by the blocked float64 elimination (55 s -> 11 s for FLINT's ``nmod_mat`` on the
   same rows), the reserve is 1x the elimination time (was 3x), and the neuron phase runs too,
   its branch-and-bound proofs taken as recorded (one check): T = 30 [1 056, 12 455] in 28.5 s,
   T = 60 [1 967, 12 455] in 58.7 s, T = 120 [4 166, 12 455] in 102.6 s (wall, start-up
   included), every certificate VALID with the upper bound certified (``netfibers verify``
   5.9 / 15.7 / 33.9 s wall); before: T = 60 [3 328, 12 950] in 45.5 s with the faster
   checker alone, [1 108, 12 950] in 49.6 s with neither.  With the second branch-and-bound try
   of the open neuron questions (``suspects.DEEPER_NODES``: (2, 25) proven never active) and the
   sampling fitted at ``SAMPLING_RATE`` (16:29-16:31 UTC, load ~1.8, a fuzz campaign on the other
   core): T = 60 [3 686, 12 356] in 61.6 s; with ``--certificate`` [1 987, 12 356] in 54.6 s,
   VALID, upper certified (``netfibers verify`` 14.4 s).  ``--dim-seeds 1,5,6`` (13:11-13:15 UTC, load ~4, unchanged by this work: no
   timeout, kernel route): seed 1 [2336, 2337] 40.3 s wall / 24.9 s CPU (missing W3[22, 8];
   (2, 8)/(3, 22) open at max G <= 6.35 after 48 splits), seed 5 [2296, 2327] 122.0 / 78.8
   (ten deficit lines W3[a, 29] + W3[b, 29]), seed 6 [2334, 2337] 44.0 / 31.0 (missing
   W3[4, 2], W3[4, 13], W3[4, 30]; (2, 2)/(3, 4) open at 8.94, (2, 13)/(3, 4) at 5.78).
3. Float32 SVD (numpy) ranks of the same Jacobian rows against their certified rank (rank mod
   p, a lower bound, against N - rank of the proven symmetries, an upper bound), 11:20 run:
   4-32-32-1 int/8 (1500 inputs): certified >= 1039, float32 298 / 261 / 815 (tolerances numpy
   default / 1e-3 s_max / 1e-6 s_max); 8-32-32-32-1 normal seed 2 (3600 random inputs):
   certified >= 2332, float32 2041 / 1723 / 2330: all wrong.

Options: ``--quick`` (smaller pairs), ``--z3-timeout S`` (default 120), ``--skip-dim``,
``--dim-targets`` (only the rows of issue 15's ``dim`` targets), ``--dim-seeds 1,3`` (only those
8-32-32-32-1 normal seeds, no ACAS Xu row), ``--acas-timeout S`` (default 60), ``--dim-obbt 5,1``
(float evidence only: conditioned bound tightening on the open pairs of those seeds, per face;
``--obbt-faces tau`` only the face tau = 1), ``--dim-split 5`` (exact: conditioned tightening
with neuron splits on the open pair of those seeds, proof checked), ``--dim-milp 1 --milp-face
tau --milp-time 600`` (float evidence only: the HiGHS MILP of that pair on the box or one face),
``--dim-walk 3,5`` (the region walk of :mod:`semialgebraic.bab.signwalk` on the open pairs of those
seeds, and on seed 5 every (1, k)/(2, 29); proposals checked exactly).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from algebra.network import Network  # noqa: E402
from algebra.rationals import Q  # noqa: E402
from semialgebraic.dimension import functional_dimension, jacobian_rows  # noqa: E402
from semialgebraic.dimension.sampling import exact_masks, simplex_points  # noqa: E402
from algebra.linalg.gfp import PRIME, rank_mod_p  # noqa: E402
from semialgebraic.equivalence import equivalent  # noqa: E402
from semialgebraic.verify import verify  # noqa: E402
from tests.cases.general import (dead_neurons, identity_layer, passthrough, permute_scale,  # noqa: E402
                                 rational_net, split_first_layer, tiny_difference)
from tests.oracles.z3 import z3_equivalent_timed  # noqa: E402


REPEAT = 3


def bench_equivalence(quick: bool, z3_timeout: float) -> None:
    rng = random.Random(2026)
    configs = [(2, 6, 6, 1), (3, 8, 6, 1), (2, 5, 5, 5, 1)] if quick else \
        [(2, 8, 8, 1), (3, 10, 10, 1), (4, 8, 8, 1), (2, 6, 6, 6, 1), (4, 10, 10, 1)]
    box = (-1, 1)
    warm = rational_net(random.Random(1), (2, 3, 1))     # import numpy / HiGHS once, untimed
    equivalent(warm, passthrough(warm, box), method="general", domain=box)
    print("\n== exact equivalence: general method vs z3 (exact reals) ==")
    print("ours: equivalent(a, b, method='general') including its certificate and the certificate's "
          f"verification; z3: s.check() only (fresh solver each run); best of {REPEAT} runs below 0.5 s")
    print(f"{'widths':<16}{'kind':<16}{'ours':>6}{'t_ours':>9}{'regions':>9}{'z3':>6}{'t_z3':>9}{'ratio':>8}")
    ratios, by_kind = [], {}
    for widths in configs:
        a = rational_net(rng, widths)
        pairs = {"equivalent": (permute_scale(a, rng), None)}
        k = rng.randrange(a.n_parameters)
        pairs["perturbed"] = (a.with_parameter(k, a.parameters()[k] + Q(1, 1000)), None)
        if widths[0] <= 3:
            pairs["passthru[-1,1]"] = (passthrough(a, box), box)
        pairs["identity-layer"] = (identity_layer(a), None)
        pairs["split[-1,1]"] = (split_first_layer(a, rng, box, slack=Q(1, 2)), box)
        pairs["dead[-1,1]"] = (dead_neurons(a, rng, box), box)
        pairs["tiny-diff[-1,1]"] = (tiny_difference(a, rng, box), box)
        for kind, (b, dom) in pairs.items():
            t_ours = float("inf")
            for _ in range(REPEAT):                  # best of REPEAT when fast (shared machine)
                t = time.perf_counter()
                v = equivalent(a, b, method="general", domain=dom, timeout=300)
                t_ours = min(t_ours, time.perf_counter() - t)
                if t_ours > 0.5:
                    break
            assert v.answer is None or verify(v.certificate)[0]
            t_z3 = float("inf")
            for _ in range(REPEAT):
                z, t = z3_equivalent_timed(a, b, z3_timeout, dom)
                t_z3 = min(t_z3, t)
                if t_z3 > 0.5:
                    break
            ratio = t_z3 / t_ours if t_ours > 0 else float("inf")
            agree = "" if z is None or z == v.answer else "  DISAGREE"
            if z is not None:
                ratios.append(ratio)
                by_kind.setdefault(kind, []).append(ratio)
            zs = {True: "eq", False: "neq", None: "t/o"}[z]
            ours = {True: "eq", False: "neq", None: "t/o"}[v.answer]
            print(f"{'-'.join(map(str, widths)):<16}{kind:<16}{ours:>6}{t_ours:>8.3f}s"
                  f"{v.details.get('regions_checked', 0):>9}{zs:>6}{t_z3:>8.3f}s{ratio:>7.1f}x{agree}")
    print("median speed-up over z3 per kind (pairs z3 decided):")
    for kind, rs in by_kind.items():
        rs.sort()
        print(f"  {kind:<16}{rs[len(rs) // 2]:>8.1f}x   (min {rs[0]:.1f}x, {len(rs)} pairs)")
    if ratios:
        ratios.sort()
        print(f"median speed-up over z3 (decided pairs): {ratios[len(ratios) // 2]:.1f}x")


def normal_net(rng, widths, den=16, bias_scale=0.1):
    """Standard-normal-like rational weights (k/den, never 0) and small biases (scale 0.1)."""
    def g(scale):
        v = 0
        while v == 0:
            v = round(rng.gauss(0, 1) * den * scale)
        return Q(v, den)
    W = [[[g(1) for _ in range(widths[l])] for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    b = [[g(bias_scale) for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    return Network(W, b)


def switching_net(rng, widths, den=16):
    """Normal-like weights k/den; each hidden neuron's bias puts its kink at the image of one of
    64 random anchor inputs (plus +-1/64), so every neuron switches on the reachable set."""
    def g():
        v = 0
        while v == 0:
            v = round(rng.gauss(0, 1) * den)
        return Q(v, den)
    Ws, bs = [], []
    H = [[Q(round(rng.gauss(0, 1) * den), den) for _ in range(widths[0])] for _ in range(64)]
    for l in range(len(widths) - 1):
        W = [[g() for _ in range(widths[l])] for _ in range(widths[l + 1])]
        if l < len(widths) - 2:
            b = [-sum((w * v for w, v in zip(W[i], H[rng.randrange(len(H))])), Q(0)) + Q(rng.choice([-1, 1]), 64)
                 for i in range(widths[l + 1])]
        else:
            b = [g() for _ in range(widths[l + 1])]
        Ws.append(W)
        bs.append(b)
        H = [[max(Q(0), sum((w * v for w, v in zip(W[i], h)), Q(0)) + b[i]) for i in range(len(W))] for h in H]
    return Network(Ws, bs)


def bench_dimension(targets_only: bool = False, seeds: tuple | None = None) -> None:
    """Functional dimension by the sandwich (semialgebraic.dimension): exact when the certified
    lower bound (rank mod p of Jacobian rows at chosen inputs) meets the proven upper bound.
    Wall and CPU seconds (the machine is shared) and the work done (points, batches)."""
    print("\n== exact functional dimension (target: 8-32-32-32-1 normal seeds 1, 3, 5, 6 exact in <= 30 s) ==")
    print(f"{'widths':<14}{'weights':<12}{'seed':>5}{'N-hid':>7}{'lower':>7}{'upper':>7}{'exact':>7}"
          f"{'inputs':>8}{'wall':>8}{'cpu':>8}  deficits / evidence")
    seeds = seeds or ((1, 3, 5, 6) if targets_only else (1, 2, 3, 4, 5, 6))
    rows = [((8, 32, 32, 32, 1), "normal", s) for s in seeds]
    if not targets_only:
        rows += [((8, 32, 32, 32, 1), "switching", s) for s in (1, 2, 3)] + \
            [((4, 32, 32, 1), "normal", s) for s in (1, 2, 3)] + \
            [((8, 32, 32, 32, 1), "int/8", 7), ((4, 32, 32, 1), "int/8", 3)]
    builders = {"normal": normal_net, "switching": switching_net,
                "int/8": lambda rng, widths: rational_net(rng, widths, den=8)}
    for widths, kind, seed in rows:
        net = builders[kind](random.Random(seed), widths)
        t, c = time.perf_counter(), time.process_time()
        fd = functional_dimension(net)          # default work budgets (no clock)
        dt, dc = time.perf_counter() - t, time.process_time() - c
        note = f"{len(fd.deficits)} deficit lines" if fd.deficits else ""
        if not fd.exact and "kernel directions" in fd.reason:
            note += ("; " if note else "") + "missing: " + fd.reason.split("(supports): ")[-1].split("; each")[0][:100]
        elif not fd.exact and "evidence" in fd.reason:
            note += ("; " if note else "") + fd.reason.split("unproven): ")[-1][:110]
        opened = [p for p in fd.reason.split("; ") if "undecided, branch and bound reached" in p]
        for part in opened[:2]:                   # the branch-and-bound questions left open
            note += "; open: " + part.split(" (semialgebraic")[0].replace("undecided, branch and bound reached ", "")
        print(f"{'-'.join(map(str, widths)):<14}{kind:<12}{seed:>5}{net.n_parameters - net.n_hidden:>7}"
              f"{fd.lower:>7}{fd.upper:>7}{str(fd.exact):>7}{fd.samples:>8}{dt:>7.1f}s{dc:>7.1f}s  {note}")


def bench_dimension_acas(timeout: float = 60.0) -> None:
    """``netfibers dim`` on the ACAS Xu 5-50x6-5 network (``benchmarks/data``) with ``--timeout``:
    exact or a certified interval, returned within 1.05 T + 2 s (wall, measured in-process after
    loading; CPU seconds too)."""
    from algebra.io.nnet import load_nnet
    from semialgebraic.budget import Budget
    path = Path(__file__).resolve().parent / "data" / "ACASXU_run2a_1_1_batch_2000.nnet"
    net = load_nnet(str(path))
    print(f"\n== functional dimension of ACAS Xu 5-50x6-5 (N = {net.n_parameters}), timeout {timeout:g} s ==")
    budget = Budget(timeout)
    t, c = time.perf_counter(), time.process_time()
    with budget.active():
        fd = functional_dimension(net, timeout=timeout, budget=budget)
    dt, dc = time.perf_counter() - t, time.process_time() - c
    print(f"lower {fd.lower}  upper {fd.upper}  exact {fd.exact}  work {fd.work_text()}  wall {dt:.1f} s "
          f"(limit {1.05 * timeout + 2:.1f} s: {'ok' if dt <= 1.05 * timeout + 2 else 'OVER'})  cpu {dc:.1f} s")
    print(f"  {fd.reason[:300]}")


def bench_float_svd() -> None:
    """Float32 SVD ranks of the Jacobian rows against the certified exact rank of the same rows:
    rank mod p (a lower bound of the rational rank) meets N - rank of the proven symmetry
    directions (an upper bound for every set of rows), so the rank of these rows is exact."""
    import numpy as np
    from semialgebraic.dimension import symmetry_directions
    from algebra.linalg import QMatrix
    print("\n== float32 SVD rank vs certified exact rank of the same Jacobian rows ==")
    cases = [("4-32-32-1 int/8 seed 3", rational_net(random.Random(3), (4, 32, 32, 1), den=8), 1500),
             ("8-32-32-32-1 normal seed 2", normal_net(random.Random(2), (8, 32, 32, 32, 1)), 3600)]
    for name, net, n_pts in cases:
        prng = random.Random(0)
        pts = []
        if net.n_inputs == 4:
            while len(pts) < n_pts:
                x = [Q(prng.randint(-4000, 4000), prng.choice((97, 101, 103)) * prng.choice((1, 8)))
                     for _ in range(net.n_inputs)]
                pts += simplex_points(net, x, net.activation_pattern(x))
        else:
            pts = [[Q(prng.randint(-4000, 4000), 1000 * prng.choice((1, 8, 64))) for _ in range(net.n_inputs)]
                   for _ in range(n_pts)]
        X, masks = exact_masks(net, pts)
        t = time.perf_counter()
        rank_p = rank_mod_p(jacobian_rows(net, X, masks, PRIME), PRIME)
        t_exact = time.perf_counter() - t
        sym, _ = symmetry_directions(net)
        upper = net.n_parameters - (QMatrix.from_rows(sym, ncols=net.n_parameters).rank() if sym else 0)
        # float32 Jacobian from the same closed form, in floating point
        Ws = [np.array([[float(v) for v in r] for r in w.to_rows()], dtype=np.float32) for w in net.weights]
        bs = [np.array([float(v) for v in b], dtype=np.float32) for b in net.biases]
        H = [np.array([[float(v) for v in x] for x in X], dtype=np.float32)]
        for l in range(net.depth - 1):
            H.append((H[-1] @ Ws[l].T + bs[l]) * masks[l].astype(np.float32))
        delta = np.ones((len(X), 1), dtype=np.float32)
        blocks = []
        for l in range(net.depth - 1, -1, -1):
            blocks.append(np.hstack([(delta[:, :, None] * H[l][:, None, :]).reshape(len(X), -1), delta]))
            if l:
                delta = (delta @ Ws[l]) * masks[l - 1].astype(np.float32)
        J = np.hstack(blocks[::-1])
        s = np.linalg.svd(J, compute_uv=False)
        exact = "exact" if rank_p == upper else f"lower bound (proven upper {upper})"
        print(f"{name}: {len(X)} inputs, N = {net.n_parameters}; rank mod p {rank_p} ({exact}) "
              f"in {t_exact:.1f} s")
        for tol_name, tol in [("numpy default", s.max() * max(J.shape) * np.finfo(np.float32).eps),
                              ("1e-3 * s_max", 1e-3 * s.max()), ("1e-6 * s_max", 1e-6 * s.max())]:
            r = int((s > tol).sum())
            verdict = "WRONG" if (r < rank_p or r > upper) else ("right" if rank_p == upper else "?")
            print(f"  float32 SVD rank, tolerance {tol_name:<14}: {r:>5}  {verdict}")


# -- float evidence: conditioned bound tightening on the open never-co-active pairs ------------------
DIM_OPEN_PAIRS = {1: [((1, 8), (2, 22))], 3: [((1, 25), (2, 21))],      # seed 3's: co-active (2026-12-03)
                  5: [((0, 1), (1, 29))], 6: [((1, 2), (2, 4)), ((1, 13), (2, 4)), ((1, 30), (2, 4))]}
"""The open questions of the four ``--dim-seeds`` rows (0-based hidden layers; the docstring's
(2, 8)/(3, 22) is ``((1, 8), (2, 22))``), as measured 2026-12-02."""


def conditioned_obbt(net, pair, box, rounds: int = 6):
    """Float evidence only (HiGHS, nothing decides): optimisation-based bound tightening of every
    unstable neuron of the homogenised network up to the deeper neuron of *pair*, over the
    triangle relaxation *with the conditioning* ``z_a >= 0`` and ``z_c >= 0`` (the question
    "is {z_a > 0, z_c > 0} empty?"), both sides of each interval, iterated *rounds* times (each
    LP sees the intervals tightened before it).  *box* is a face of the homogenised box (one
    coordinate fixed: tau = 1 or x_k = +-1; on the whole box the origin is conditioned-feasible).
    Returns ``(status, rounds done, LPs, (max z_a, max z_c), unstable neurons left)``, status
    ``"infeasible"`` when one LP (or one interval) is empty: the conditioned set is then empty on
    the face in floats, which an exact Farkas certificate could prove."""
    from highspy import _core as hc
    from semialgebraic.bab.emptiness import emptiness_network
    from semialgebraic.bab.relaxation import LPTemplate, build_lp, node_intervals
    from semialgebraic.lp.floatlp import new_highs, run_highs
    (t1, j1), (t2, j2) = pair
    G = emptiness_network(net, None, {(t2, j2): 1})          # homogenised, output z_c, tau carried
    Ws = [W.to_rows() for W in G.weights]
    bs = [list(b) for b in G.biases]
    ex = node_intervals(Ws, bs, [(Q(lo), Q(hi)) for lo, hi in box], {(t1, j1): 1})
    if ex is None:
        return "infeasible", 0, 0, None, 0
    ivs = [[[float(lo), float(hi)] for lo, hi in layer] for layer in ex]
    ivs[-1][0][0] = max(ivs[-1][0][0], 0.0)                  # conditioning z_c >= 0
    t = LPTemplate(Ws, bs)
    L, lps = len(Ws), 0
    fbox = [(float(lo), float(hi)) for lo, hi in box]
    for rnd in range(rounds):
        lp, _ = build_lp(t, fbox, [[tuple(v) for v in layer] for layer in ivs], [0.0])
        h = new_highs()
        h.passModel(lp)
        changed = 0
        for l in range(L):
            for j, iv in enumerate(ivs[l]):
                if l < L - 1 and not iv[0] < 0 < iv[1] and (l, j) != (t1, j1):
                    continue
                col = t.zoff[l] + j
                for sgn in (1.0, -1.0):                      # maximise sgn * z
                    h.changeColCost(col, sgn)
                    run_highs(h)
                    lps += 1
                    name = str(h.getModelStatus()).rsplit(".", 1)[-1]
                    if name == "kInfeasible":
                        return "infeasible", rnd + 1, lps, None, 0
                    if name != "kOptimal":
                        continue
                    v = sgn * h.getInfo().objective_function_value
                    k = 1 if sgn > 0 else 0
                    if (v < iv[1] - 1e-9) if sgn > 0 else (v > iv[0] + 1e-9):
                        iv[k] = v
                        changed += 1
                    if iv[0] > iv[1] + 1e-9:
                        return "infeasible", rnd + 1, lps, None, 0
                    h.changeColBounds(col, iv[0], iv[1])
                h.changeColCost(col, 0.0)
        if not changed:
            break
    unstable = sum(1 for layer in ivs[:-1] for lo, hi in layer if lo < 0 < hi)
    return "open", rnd + 1, lps, (ivs[t1][j1][1], ivs[-1][0][1]), unstable


def bench_dim_obbt(seeds, rounds: int = 6, faces: str = "all") -> None:
    """Float evidence for :data:`DIM_OPEN_PAIRS`: :func:`conditioned_obbt` on the face tau = 1
    and the 2d faces x_k = +-1 of the homogenised box (their union meets every ray, so empty
    conditioned sets on all faces would mean never co-active), CPU seconds per pair."""
    print(f"\n== conditioned bound tightening (floats, evidence only), {rounds} rounds per face ==")
    for seed in seeds:
        net = normal_net(random.Random(seed), (8, 32, 32, 32, 1))
        d = net.n_inputs
        full = [(-1, 1)] * d + [(0, 1)]
        names = [("tau=1", [(-1, 1)] * d + [(1, 1)])]
        if faces == "all":
            for k in range(d):
                for s in (1, -1):
                    b = list(full)
                    b[k] = (s, s)
                    names.append((f"x{k}={s:+d}", b))
        for pair in DIM_OPEN_PAIRS.get(seed, []):
            c = time.process_time()
            out = [(nm, conditioned_obbt(net, pair, b, rounds)) for nm, b in names]
            closed = [nm for nm, r in out if r[0] == "infeasible"]
            opened = [(nm, r) for nm, r in out if r[0] != "infeasible"]
            worst = ", ".join(f"{nm}: max z_a {r[3][0]:.3g}, z_c {r[3][1]:.3g}, {r[4]} unstable"
                              for nm, r in opened[:3])
            print(f"seed {seed} pair {pair}: {len(closed)}/{len(out)} faces empty in floats "
                  f"({sum(r[2] for _, r in out)} LPs, {time.process_time() - c:.1f} s CPU); open: {worst}",
                  flush=True)


def bench_dim_split(seeds, lps: int = 20000, splits: int = 200) -> None:
    """Exact, certified: conditioned tightening *with neuron splits*
    (:func:`semialgebraic.bab.emptiness.decide_conditioned`, ``splits``) on the first open pair
    of each seed of :data:`DIM_OPEN_PAIRS`; the proof checked by the independent checker.  Prints
    proved / open, LPs (float and exact), split nodes per piece, CPU seconds of the search and
    of the check."""
    import json
    from semialgebraic.bab.emptiness import Emptiness, decide_conditioned
    from semialgebraic.verify.functional_dimension_emptiness import check_bab_empty
    print(f"\n== conditioned tightening with neuron splits (exact), <= {lps} LPs, <= {splits} splits ==")

    def count(node):
        return ("split" in node) + sum(count(k) for k in node.get("children", []))
    for seed in seeds:
        net = normal_net(random.Random(seed), (8, 32, 32, 32, 1))
        pair = DIM_OPEN_PAIRS[seed][0]
        targets = {pair[0]: 1, pair[1]: 1}
        c = time.process_time()
        pieces, used = decide_conditioned(net, None, targets, lps=lps, splits=splits)
        dc = time.process_time() - c
        if pieces is None:
            print(f"seed {seed} pair {pair}: open ({used} LPs, {dc:.1f} s CPU)", flush=True)
            continue
        c = time.process_time()
        ok = check_bab_empty(net, json.loads(json.dumps(Emptiness(True, pieces=pieces).proof(targets))),
                             None, targets)
        print(f"seed {seed} pair {pair}: proved ({used} LPs, {dc:.1f} s CPU), splits per piece "
              f"{[count(p) for p in pieces]}, checked {ok} ({time.process_time() - c:.1f} s CPU)", flush=True)


def dim_milp(seed: int, face: str = "box", time_limit: float = 600.0, pair=None) -> dict:
    """Float evidence only (HiGHS MILP, one thread, ``mip_rel_gap = 0``; nothing decides): max
    of ``min(z_a, z_c)`` for the first open pair of *seed* (:data:`DIM_OPEN_PAIRS`) over the
    homogenised box (*face* ``"box"``: its maximum is 0 at the origin when the pair is never
    co-active, so the tree must close at zero margin) or over one face (``"tau"``: tau = 1;
    ``"x3+"``: x_3 = 1), the conditioning ``z_a >= 0``, ``z_c >= 0`` added as bounds.  Big-M from
    interval bounds tightened by two rounds of float OBBT over the conditioned LP relaxation.
    Returns status, dual bound, nodes and CPU seconds of the MILP."""
    import highspy
    import numpy as np
    net = normal_net(random.Random(seed), (8, 32, 32, 32, 1))
    (ta, ja), (tc, jc) = pair or DIM_OPEN_PAIRS[seed][0]
    Ws = [np.array([[float(v) for v in r] for r in W.to_rows()]) for W in net.weights[:tc + 1]]
    bs = [np.array([float(v) for v in b]) for b in net.biases[:tc + 1]]
    box = [(-1.0, 1.0)] * net.n_inputs + [(0.0, 1.0)]
    if face == "tau":
        box[-1] = (1.0, 1.0)
    elif face != "box":
        box[int(face[1:-1])] = (1.0, 1.0) if face[-1] == "+" else (-1.0, -1.0)
    L, U, hl, hu = [], [], np.array([a for a, _ in box[:-1]]), np.array([b for _, b in box[:-1]])
    for W, b in zip(Ws, bs):                       # interval bounds (tau in [box[-1]])
        Wp, Wn = np.maximum(W, 0), np.minimum(W, 0)
        L.append(Wp @ hl + Wn @ hu + np.minimum(b * box[-1][0], b * box[-1][1]))
        U.append(Wp @ hu + Wn @ hl + np.maximum(b * box[-1][0], b * box[-1][1]))
        hl, hu = np.maximum(L[-1], 0), np.maximum(U[-1], 0)
    L[ta][ja], L[tc][jc] = max(L[ta][ja], 0.0), max(L[tc][jc], 0.0)

    def model(integer):
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", 1)
        x = [h.addVariable(lb=a, ub=b) for a, b in box]
        prev, z = x[:-1], []
        for t, (W, b) in enumerate(zip(Ws, bs)):
            z.append([h.addVariable(lb=L[t][j], ub=U[t][j]) for j in range(len(b))])
            for j in range(len(b)):
                h.addConstr(z[t][j] - sum(W[j, k] * p for k, p in enumerate(prev)) - b[j] * x[-1] == 0)
            if t == tc:
                break
            nxt = []
            for j in range(len(b)):
                lo, hi = L[t][j], U[t][j]
                if lo >= 0 or hi <= 0:
                    nxt.append(z[t][j] if lo >= 0 else 0.0)
                    continue
                hv = h.addVariable(lb=0.0, ub=hi)
                dv = h.addVariable(lb=0.0, ub=1.0, type=highspy.HighsVarType.kInteger) if integer else \
                    h.addVariable(lb=0.0, ub=1.0)
                h.addConstr(hv - z[t][j] >= 0)
                h.addConstr(hv - z[t][j] - lo * dv <= -lo)
                h.addConstr(hv - hi * dv <= 0)
                nxt.append(hv)
            prev = nxt
        return h, z

    for _ in range(2):                             # float OBBT over the conditioned relaxation
        for t in range(tc + 1):
            h, z = model(False)
            for j in range(len(bs[t])):
                if t == tc and j != jc or t < tc and not L[t][j] < 0 < U[t][j] and (t, j) != (ta, ja):
                    continue
                for sense in (highspy.ObjSense.kMaximize, highspy.ObjSense.kMinimize):
                    h.setObjective(z[t][j], sense)
                    h.run()
                    if h.getModelStatus() == highspy.HighsModelStatus.kInfeasible:
                        return {"status": "infeasible after OBBT", "nodes": 0}
                    v = h.getInfo().objective_function_value
                    if sense == highspy.ObjSense.kMaximize:
                        U[t][j] = min(U[t][j], v)
                    else:
                        L[t][j] = max(L[t][j], v)
                    h.changeColBounds(z[t][j].index, L[t][j], U[t][j])
    h, z = model(True)
    s = h.addVariable(lb=-highspy.kHighsInf, ub=highspy.kHighsInf)
    h.addConstr(s - z[ta][ja] <= 0)
    h.addConstr(s - z[tc][jc] <= 0)
    h.setObjective(s, highspy.ObjSense.kMaximize)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("time_limit", float(time_limit))
    c = time.process_time()
    h.run()
    info = h.getInfo()
    return {"status": str(h.getModelStatus()).rsplit(".", 1)[-1], "dual": info.mip_dual_bound,
            "incumbent": info.objective_function_value, "nodes": info.mip_node_count,
            "cpu": time.process_time() - c}


def bench_dim_walk(seeds, lps: int = 1500) -> None:
    """The region walk (:func:`semialgebraic.bab.signwalk.sign_walk`, *lps* LPs) on the pairs of
    :data:`DIM_OPEN_PAIRS` and, for seed 5, on every (1, k)/(2, 29) (1-based): which pairs it
    finds co-active (each proposal checked exactly here), CPU seconds per pair."""
    from semialgebraic.bab.signwalk import sign_walk
    for seed in seeds:
        net = normal_net(random.Random(seed), (8, 32, 32, 32, 1))
        pairs = DIM_OPEN_PAIRS[seed] + ([((0, k), (1, 29)) for k in range(32)] if seed == 5 else [])
        off = [0]
        for w in net.widths[1:-1]:
            off.append(off[-1] + w)
        for (ta, ja), (tc, jc) in dict.fromkeys(pairs):
            c = time.process_time()
            found = sign_walk(net, None, {(ta, ja): 1, (tc, jc): 1}, lps=lps)
            pat = net.activation_pattern(found[0]) if found else None
            ok = pat is not None and pat[off[ta] + ja] == 1 and pat[off[tc] + jc] == 1
            print(f"seed {seed} ({ta + 1}, {ja})/({tc + 1}, {jc}): "
                  f"{'co-active (exact witness)' if ok else 'no witness'}  {time.process_time() - c:.2f} s CPU",
                  flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--z3-timeout", type=float, default=120.0)
    ap.add_argument("--skip-dim", action="store_true")
    ap.add_argument("--dim-targets", action="store_true",
                    help="only the issue-15 dim rows: 8-32-32-32-1 normal seeds 1, 3, 5, 6 and ACAS Xu")
    ap.add_argument("--dim-seeds", default=None,
                    help="only these 8-32-32-32-1 normal seeds (comma-separated, e.g. 1,3), no ACAS Xu row")
    ap.add_argument("--acas-timeout", type=float, default=60.0)
    ap.add_argument("--dim-obbt", default=None,
                    help="float evidence only: conditioned bound tightening on the open pairs of these seeds")
    ap.add_argument("--obbt-faces", default="all", choices=("all", "tau"))
    ap.add_argument("--dim-split", default=None,
                    help="exact: conditioned tightening with neuron splits on the open pair of these seeds")
    ap.add_argument("--dim-milp", default=None,
                    help="float evidence only: HiGHS MILP on the open pair of these seeds (--milp-face, --milp-time)")
    ap.add_argument("--dim-walk", default=None,
                    help="float proposals checked exactly: the region walk on the open pairs of these seeds")
    ap.add_argument("--milp-face", default="box")
    ap.add_argument("--milp-time", type=float, default=600.0)
    args = ap.parse_args()
    if args.dim_split:
        bench_dim_split(tuple(int(v) for v in args.dim_split.split(",")))
        return
    if args.dim_walk:
        bench_dim_walk(tuple(int(v) for v in args.dim_walk.split(",")))
        return
    if args.dim_milp:
        for seed in (int(v) for v in args.dim_milp.split(",")):
            print(f"seed {seed} {args.milp_face}: {dim_milp(seed, args.milp_face, args.milp_time)}", flush=True)
        return
    if args.dim_obbt:
        bench_dim_obbt(tuple(int(v) for v in args.dim_obbt.split(",")), faces=args.obbt_faces)
        return
    if args.dim_seeds:
        bench_dimension(targets_only=True, seeds=tuple(int(v) for v in args.dim_seeds.split(",")))
        return
    if args.dim_targets:
        bench_dimension(targets_only=True)
        bench_dimension_acas(args.acas_timeout)
        return
    bench_equivalence(args.quick, args.z3_timeout)
    if not args.skip_dim:
        bench_float_svd()
        bench_dimension()
        bench_dimension_acas(args.acas_timeout)


if __name__ == "__main__":
    main()
