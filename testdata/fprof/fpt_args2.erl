%% Spawn arguments of many shapes: fprof pretty-prints them in spawned_as.
-module(fpt_args2).
-export([run/0, w/1, w/2, w/3]).
run() ->
    Args = [
      [#{alpha_key => "some longer string value", beta_key => [1,2,3,4,5,6,7,8,9,10], gamma => {x, y, z}, delta => <<"binary text">>}],
      [lists:seq(1, 30) ++ improper_tail_marker, [a|b]],
      [[[1,2,3],[4,5,6],[7,8,9],[10,11,12],[13,14,15],[16,17,18],[19,20,21],[22,23,24]]],
      ["a very long string that will certainly not fit on one line of eighty columns at all"],
      [list_to_tuple(lists:seq(1, 35))],
      [[{tag, lists:seq(1, 20)}, {other_tag, "text", 3.14159}, {'Weird Tag', [x, y]}]],
      [<<0:3>>, <<255,254,253,252,251,250,249,248,247,246,245,244,243,242,241,240,239,238,237,236,235,234,233,232,231,230>>, [{a,1}]],
      ["λ unicode string ünï", 'ünï_atom', -12345678901234567890123]
    ],
    Ps = [spawn(?MODULE, w, A) || A <- Args],
    [P ! stop || P <- Ps],
    timer:sleep(20),
    ok.
w(_) -> receive stop -> ok end.
w(_, _) -> receive stop -> ok end.
w(_, _, _) -> receive stop -> ok end.
