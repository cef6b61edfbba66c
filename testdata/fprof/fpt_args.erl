%% Spawn arguments of many shapes: fprof pretty-prints them in spawned_as.
-module(fpt_args).
-export([run/0, w/1, w/2, w/3, w/4]).
run() ->
    Self = self(),
    Args = [
      [lists:seq(1, 40)],
      [{a_rather_long_atom_name, "a string that is fairly long indeed", 12345678901234567890}, Self],
      [#{alpha => 1, beta => [1,2,3], gamma => <<"bin">>}, make_ref(), 1.5e-7],
      [[{key1, value1}, {key2, value2}, {key3, value3}, {key4, value4}, {key5, value5}], x],
      [<<1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30>>],
      [fun lists:sort/1, fun(X) -> X end, 'Quoted Atom', [1|2]],
      [{{nested, {deeply, {nested, {tuple, [with, a, list, inside, it, that, goes, on, and_on]}}}}}]
    ],
    Ps = [spawn(?MODULE, w, A) || A <- Args],
    [P ! stop || P <- Ps],
    timer:sleep(20),
    ok.
w(_) -> receive stop -> ok end.
w(_, _) -> receive stop -> ok end.
w(_, _, _) -> receive stop -> ok end.
w(_, _, _, _) -> receive stop -> ok end.
