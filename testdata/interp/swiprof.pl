/*  swiprof.pl - the reference for the SWI-Prolog binding: SWI's own
    profiler.  swiprof(Goal) runs Goal under profile/2 with ports(true) and
    prints, for every predicate of module user, "Name/Arity Calls Redos
    Recursive" from profile_data/1 (recursive entries are the calls from
    '<recursive>'), sorted like entries.sh's lines.
*/
swiprof(Goal) :-
    swiprof(Goal, _).

% swiprof(Goal, File): only the predicates defined in File (all when unbound).
swiprof(Goal, File) :-
    profile(Goal, [ports(true), top(0)]),
    profile_data(Data),
    get_dict(nodes, Data, Nodes),
    findall(Line, (member(Node, Nodes), node_line(Node, File, Line)), Lines0),
    msort(Lines0, Lines),
    forall(member(L, Lines), format(user_error, '~w~n', [L])).

node_line(Node, File, Line) :-
    get_dict(predicate, Node, user:Name/Arity),
    functor(Head, Name, Arity),
    (   var(File) -> true ; predicate_property(user:Head, file(File)) ),
    get_dict(call, Node, Calls),
    get_dict(redo, Node, Redos),
    get_dict(callers, Node, Callers),
    aggregate_all(sum(N), member(node('<recursive>', _, _, _, N, _, _), Callers), Rec),
    format(atom(Line), '~w/~w ~w ~w ~w', [Name, Arity, Calls, Redos, Rec]).
