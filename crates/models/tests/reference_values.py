#!/usr/bin/env python3
# Independent reference values for incastsim-models tests (straight transcription of the printed formulas).
from math import sqrt, floor, ceil
def ex(rmin,d,n): return rmin + d*(n-1)/(2*(n+1))
def var(rmin,d,n): return 2*d*d/((n+1)*(n+2)) - d*d/(n+1)**2
for n in (1,4,16,256):
    print("E[X]", n, repr(ex(10e-3,4e-3,n)), "Var", repr(var(10e-3,4e-3,n)), "bound", repr((4e-3)**2/(n+1)**2))
def pgt(rmin,d,n,k): return 1-((k-(rmin-d/2))/d)**n
print("P(X>11ms) N=4", repr(pgt(10e-3,4e-3,4,11e-3)), "N=16", repr(pgt(10e-3,4e-3,16,11.5e-3)))
def nmax(B,Cbps,T,L):
    b=(B+2*(Cbps/8)*T)/(5*L); return b, ceil(b)-1
for B in (32000,32768):
  for T in (25e-6,50e-6):
    for L in (1500,750):
        print("nmax",B,T,L,nmax(B,1e9,T,L))
def book(n,pc,pr,delta,rtt,t0,L,nstar=3):
    j=min(n,pr/pc)
    D=2*j*j*pc - n*pc*j + sqrt(n*n*pc*pc*j*j - 4*n*pc*pc*j**3 + 4*j**4*pc*pc + 24*n*n*pc*j)
    td = 1/rtt*6*n*n/D
    EX = D/(6*n*n*pc); EY=1/pc
    EWf = 2*n/j*EX
    w = int(floor(EWf+0.5))
    q=1-pr
    A=lambda w,k: q**k*pr/(1-q**w)
    C=lambda k,m: q**m*pr if m<k else q**k
    if w<=3: qf=1.0; qs=1.0
    else:
        s2=sum(A(w,k)*sum(C(k,m) for m in range(3)) for k in range(3,w+1))
        qf=sum(A(w,k) for k in range(3))+s2
        qs=A(w,0) if n<=nstar else s2
    rho=L/EY; qa=delta/rho
    Qf=min(1,qf+qa); Qs=min(1,qs+qa)
    full=EY/(rtt*EX+Qf*t0); split=EY/(rtt*EX+Qs*t0)
    return dict(j=j,D=D,EX=EX,EWf=EWf,w=w,qibtt_full=qf,qibt_split=qs,qabtt=qa,Qf=Qf,Qs=Qs,td=td,full=full,split=split)
for args in [(8,0.01,0.05,0.5,100e-6,200e-3,8*256),(2,0.02,0.03,0.1,100e-6,200e-3,2*256),(32,0.005,0.08,2.0,150e-6,200e-3,32*256),(16,0.001,0.002,0.0,100e-6,10e-3,16*256)]:
    r=book(*args); print(args); [print("  ",k,repr(v)) for k,v in r.items()]
