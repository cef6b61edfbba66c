%% Exceptions caught several frames up, try/after, a process that crashes,
%% and atoms that need quoting (including one outside Latin-1).
-module(fpt_exc).
-export([run/0, crasher/1, 'Quoted fun'/1, 'λ_fun'/1]).

run() ->
    R1 = catch deep(20),
    R2 = try deep(5) catch throw:{bottom, N} -> N after cleanup() end,
    {Pid, Ref} = spawn_monitor(?MODULE, crasher, [3]),
    receive {'DOWN', Ref, process, Pid, _} -> ok end,
    Q = 'Quoted fun'(2),
    L = 'λ_fun'(3),
    {R1, R2, Q, L}.

deep(0) -> throw({bottom, 0});
deep(N) -> 1 + deep(N - 1).

cleanup() -> ok.

crasher(N) -> 10 div (N - 3).

'Quoted fun'(X) -> X * 2.
'λ_fun'(X) -> X + 1.
